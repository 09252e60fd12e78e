import { Controller, INestMicroservice, Module, UseFilters } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { DomainError, RpcErrorFilter } from '@gen/errors';
import { of } from 'rxjs';
import { InProcessBus, InProcessServer } from './in-process.transport';
import { InProcessRpcClient } from './rpc-client';

/** What the handlers kept of their last call, to check that caller and handler share nothing. */
const kept: { request?: Record<string, unknown>; reply?: Record<string, unknown> } = {};
const events: unknown[] = [];

@Controller()
@UseFilters(RpcErrorFilter)
class Handlers {
  @MessagePattern('t.echo')
  async echo(@Payload() request: Record<string, unknown>): Promise<Record<string, unknown>> {
    kept.request = request;
    request.touchedByHandler = true;
    kept.reply = { got: { ...request }, at: new Date('2026-01-02T03:04:05.000Z'), list: [1, 2] };
    return kept.reply;
  }

  @MessagePattern('t.fail')
  async fail(): Promise<never> {
    throw new DomainError('insufficient_credits', 'Not enough credits for this model (minimum 4).');
  }

  @MessagePattern('t.stream')
  stream() {
    return of(1, 2, 3);
  }

  @EventPattern('t.happened')
  async happened(@Payload() event: unknown): Promise<void> {
    events.push(event);
  }
}

@Module({ controllers: [Handlers] })
class HandlersModule {}

describe('in-process transport (standalone): the same semantics as over NATS', () => {
  const bus = new InProcessBus();
  const client = new InProcessRpcClient(bus);
  let app: INestMicroservice;

  beforeAll(async () => {
    app = await NestFactory.createMicroservice(HandlersModule, { strategy: new InProcessServer(bus), logger: false });
    await app.listen();
  });
  afterAll(() => app?.close());

  it('the handler gets its own copy of the request, the caller its own copy of the reply, dates as strings', async () => {
    const request = { jobId: 'j1', nested: { a: 1 } };
    const reply = await client.request<Record<string, any>>('t.echo', request);
    expect(reply).toEqual({ got: { jobId: 'j1', nested: { a: 1 }, touchedByHandler: true }, at: '2026-01-02T03:04:05.000Z', list: [1, 2] });
    // Neither side sees the other's changes.
    expect(request).toEqual({ jobId: 'j1', nested: { a: 1 } });
    expect(kept.request).not.toBe(request);
    reply.list.push(3);
    expect(kept.reply?.list).toEqual([1, 2]);
  });

  it("a handler's domain error arrives as the same DomainError", async () => {
    const failure = client.request('t.fail', {});
    await expect(failure).rejects.toBeInstanceOf(DomainError);
    await expect(failure).rejects.toMatchObject({ code: 'insufficient_credits', message: 'Not enough credits for this model (minimum 4).' });
  });

  it('an observable reply resolves with its last value', async () => {
    await expect(client.request('t.stream', {})).resolves.toBe(3);
  });

  it('a pattern nothing answers is service_unavailable, as a request no NATS replica takes', async () => {
    await expect(client.request('t.nobody', {})).rejects.toMatchObject({ code: 'service_unavailable' });
    await expect(client.request('t.happened', {})).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('events reach their handler with a copy of the payload', async () => {
    const event = { id: 'e1' };
    await bus.publish('t.happened', event);
    expect(events).toEqual([{ id: 'e1' }]);
    expect(events[0]).not.toBe(event);
    await expect(bus.publish('t.echo', {})).rejects.toThrow('t.echo is a request pattern, not an event');
  });
});
