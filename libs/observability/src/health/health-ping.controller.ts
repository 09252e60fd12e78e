import { Controller, Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { HealthPingReply, HealthSubjects, ServiceName } from '@gen/contracts';

/** A message controller answering the health pings of the given services (one process may host several). */
export function healthPingController(services: readonly ServiceName[]): Type<unknown> {
  @Controller()
  class HealthPingController {}
  for (const service of services) {
    const method = `ping_${service}`;
    const handler = (): HealthPingReply => ({ service, status: 'ok' });
    Object.defineProperty(HealthPingController.prototype, method, { value: handler, writable: true, configurable: true });
    const descriptor = Object.getOwnPropertyDescriptor(HealthPingController.prototype, method) as PropertyDescriptor;
    MessagePattern(HealthSubjects[service])(HealthPingController.prototype, method, descriptor);
  }
  return HealthPingController;
}
