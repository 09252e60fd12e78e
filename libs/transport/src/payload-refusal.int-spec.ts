import { Controller, INestMicroservice, Module, UseFilters } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { AccountLowBalanceEvent, BalanceRequest, Broadcasts, Events, Subjects } from '@gen/contracts';
import { DomainError, RpcErrorFilter } from '@gen/errors';
import { connect } from 'nats';
import { randomBytes, randomUUID } from 'node:crypto';
import { Broadcaster, NatsBroadcaster } from './broadcaster';
import { InProcessBus, InProcessServer } from './in-process.transport';
import { NatsTransportConfig } from './nats.config';
import { NatsJetStreamServer } from './nats.server';
import { MessageRefusals } from './payload-check';
import { EventPublisher, InProcessEventPublisher, InProcessRpcClient, JetStreamEventPublisher, NatsRpcClient, RpcClient } from './rpc-client';

const NATS_URL = process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** What reached the handlers. */
const calls: { balance: unknown[]; lowBalance: unknown[] } = { balance: [], lowBalance: [] };

@Controller()
@UseFilters(RpcErrorFilter)
class Handlers {
  @MessagePattern(Subjects.billingBalance)
  async balance(@Payload() request: BalanceRequest): Promise<{ accountId: string }> {
    calls.balance.push(request);
    return { accountId: request.accountId };
  }

  @EventPattern(Events.accountLowBalance)
  async lowBalance(@Payload() event: AccountLowBalanceEvent): Promise<void> {
    calls.lowBalance.push(event);
  }
}

@Module({ controllers: [Handlers] })
class HandlersModule {}

const lowBalanceEvent = (): AccountLowBalanceEvent => ({
  eventId: randomUUID(),
  event: 'account.low_balance',
  accountId: randomUUID(),
  threshold: 500,
  available: 499,
  crossedAt: new Date().toISOString(),
});

async function refused(refusals: MessageRefusals, subject: string, reason = 'invalid'): Promise<number> {
  const { values } = await refusals.counter.get();
  return values.find((v) => v.labels.subject === subject && v.labels.reason === reason)?.value ?? 0;
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

interface Transport {
  rpc: RpcClient;
  events: EventPublisher;
  broadcaster: Broadcaster;
  refusals: MessageRefusals;
}

/**
 * The same checks over each transport: a malformed request is answered with the envelope (422
 * validation_error), a malformed event is dropped; each counted, no handler called, and the
 * transport answers the next well-formed message as before.
 */
function refusesMalformedMessages(name: string, open: () => Promise<Transport>, close: () => Promise<void>): void {
  describe(name, () => {
    let t: Transport;
    beforeAll(async () => {
      t = await open();
    });
    afterAll(close);
    beforeEach(() => {
      calls.balance.length = 0;
      calls.lowBalance.length = 0;
    });

    it('answers a malformed request with the envelope, counts it, and never calls the handler', async () => {
      const before = await refused(t.refusals, Subjects.billingBalance);
      const reply = t.rpc.request(Subjects.billingBalance, { accountId: 42 });
      await expect(reply).rejects.toBeInstanceOf(DomainError);
      await expect(reply).rejects.toMatchObject({ code: 'validation_error', message: `Malformed ${Subjects.billingBalance} message: accountId must be a string.` });
      await expect(t.rpc.request(Subjects.billingBalance, 'not an object')).rejects.toMatchObject({ code: 'validation_error' });
      expect(await refused(t.refusals, Subjects.billingBalance)).toBe(before + 2);
      expect(calls.balance).toEqual([]);
      // Alive: the next well-formed request is answered.
      const accountId = randomUUID();
      await expect(t.rpc.request(Subjects.billingBalance, { accountId })).resolves.toEqual({ accountId });
      expect(calls.balance).toEqual([{ accountId }]);
    });

    it('drops a malformed event (counted, never handled) and handles the next one', async () => {
      const before = await refused(t.refusals, Events.accountLowBalance);
      const bad = { ...lowBalanceEvent(), threshold: 'five hundred' };
      await t.events.publish(Events.accountLowBalance, bad, bad.eventId);
      const good = lowBalanceEvent();
      await t.events.publish(Events.accountLowBalance, good, good.eventId);
      await until('the well-formed event', () => calls.lowBalance.length > 0);
      expect(await refused(t.refusals, Events.accountLowBalance)).toBe(before + 1);
      expect(calls.lowBalance).toEqual([good]);
    });

    it('drops a malformed live status broadcast, passes a malformed invalidation on (counted both)', async () => {
      const changed: unknown[] = [];
      const keys: unknown[] = [];
      const stop = [t.broadcaster.subscribe(Broadcasts.generationChanged, (p) => changed.push(p)), t.broadcaster.subscribe(Broadcasts.apiKeyChanged, (p) => keys.push(p))];
      try {
        await new Promise((resolve) => setTimeout(resolve, 200)); // NATS: the subscriptions are made
        await t.broadcaster.publishAndFlush(Broadcasts.generationChanged, { accountId: randomUUID(), record: { id: 7 } });
        await t.broadcaster.publishAndFlush(Broadcasts.apiKeyChanged, { what: 'is this' });
        await until('the invalidation', () => keys.length > 0);
        await until('both counted', async () => (await refused(t.refusals, Broadcasts.generationChanged)) === 1 && (await refused(t.refusals, Broadcasts.apiKeyChanged)) === 1);
        expect(keys).toEqual([{ what: 'is this' }]);
        expect(changed).toEqual([]);
      } finally {
        stop.forEach((unsubscribe) => unsubscribe());
      }
    });
  });
}

let app: INestMicroservice | undefined;

refusesMalformedMessages(
  'in-process transport',
  async () => {
    const bus = new InProcessBus();
    app = await NestFactory.createMicroservice(HandlersModule, { strategy: new InProcessServer(bus), logger: false });
    await app.listen();
    return { rpc: new InProcessRpcClient(bus), events: new InProcessEventPublisher(bus), broadcaster: bus.broadcaster, refusals: bus.refusals };
  },
  async () => {
    await app?.close();
  },
);

const token = randomBytes(4).toString('hex');
const config: NatsTransportConfig = {
  url: NATS_URL,
  service: 'refusal-spec',
  subjectPrefix: `refusal${token}.`,
  streamName: `GEN_REFUSAL_${token.toUpperCase()}`,
  requestTimeoutMs: 5_000,
};
let client: NatsRpcClient | undefined;
let broadcaster: NatsBroadcaster | undefined;

refusesMalformedMessages(
  'NATS transport',
  async () => {
    const server = new NatsJetStreamServer(config, 2_000);
    app = await NestFactory.createMicroservice(HandlersModule, { strategy: server, logger: false });
    await app.listen();
    client = new NatsRpcClient({ ...config, service: 'refusal-spec-client' });
    broadcaster = new NatsBroadcaster(config, client, server.refusals);
    const events = new JetStreamEventPublisher(config, client);
    // The server's durable consumer exists once it pulls: wait for it before publishing.
    const nc = await connect({ servers: NATS_URL });
    try {
      const jsm = await nc.jetstreamManager();
      await until('the event consumer', async () => (await jsm.consumers.list(config.streamName).next().catch(() => [])).length > 0);
    } finally {
      await nc.close();
    }
    return { rpc: client, events, broadcaster, refusals: server.refusals };
  },
  async () => {
    broadcaster?.onApplicationShutdown();
    await app?.close();
    const nc = await connect({ servers: NATS_URL });
    await (await nc.jetstreamManager()).streams.delete(config.streamName).catch(() => false);
    await nc.close();
    await client?.onApplicationShutdown();
  },
);
