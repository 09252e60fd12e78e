import { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { HttpErrorFilter } from '@gen/errors';
import { configureObservedHttp } from './observed-http';

/**
 * The small HTTP side of a message-driven service (billing, generation, webhooks): /healthz,
 * /readyz and /metrics on its own port, with the same logging and error envelope as the API.
 * The service's message transport is attached to it with `connectMicroservice` (a hybrid app).
 */
export async function createServiceHttpApp(module: Type<unknown>): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ logger: false, return503OnClosing: true, requestIdHeader: 'x-request-id' });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { bufferLogs: true });
  configureObservedHttp(app);
  app.useGlobalFilters(new HttpErrorFilter());
  return app;
}
