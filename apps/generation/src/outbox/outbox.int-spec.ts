import { Logger } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import type { JetStreamManager } from 'nats';
import type { DataSource, QueryRunner } from 'typeorm';
import { Events } from '@gen/contracts';
import { EventPublisher, InProcessBroadcaster, JetStreamEventPublisher, NatsRpcClient, NatsTransportConfig } from '@gen/transport';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from '../generation.database';
import type { GenerationSettings } from '../config/generation.tokens';
import { OutboxRelayService } from './outbox-relay.service';
import { OutboxLease, OutboxMessage, OutboxRepository } from './outbox.repository';
import { DEFAULT_OUTBOX_SETTINGS, OutboxSettings } from '../config/outbox.settings';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** JetStream, with a record of every publish asked of it; `hold()` makes publishes wait until released. */
class RecordingPublisher extends EventPublisher {
  readonly asked: string[] = [];
  private gate?: Promise<void>;
  private open?: () => void;
  private reached?: () => void;

  constructor(private readonly inner: EventPublisher) {
    super();
  }

  /** Publishes wait from now on; resolves `reached` when the first one is waiting. */
  hold(): { reached: Promise<void>; release: () => void } {
    this.gate = new Promise((resolve) => (this.open = resolve));
    const reached = new Promise<void>((resolve) => (this.reached = resolve));
    return {
      reached,
      release: () => {
        this.gate = undefined;
        this.open?.();
      },
    };
  }

  async publish(pattern: string, payload: unknown, messageId: string): Promise<void> {
    this.asked.push(messageId);
    if (this.gate) {
      this.reached?.();
      await this.gate;
    }
    await this.inner.publish(pattern, payload, messageId);
  }
}

/**
 * Integration (real PostgreSQL and NATS JetStream): the outbox is claimed with a lease, published
 * with no transaction open, then marked. A relay stuck in a publish blocks no other relay; a relay
 * that dies between publish and mark has its events published again when the lease ends (JetStream
 * keeps one copy: the event id is the message id); under concurrency every event reaches the stream
 * exactly once.
 */
describe('outbox: leases, publishing outside any transaction (PostgreSQL, NATS JetStream)', () => {
  let database: TestDatabase;
  const dataSources: DataSource[] = [];
  let outbox: OutboxRepository;
  let nats: NatsRpcClient;
  let jetStream: EventPublisher;
  let jsm: JetStreamManager;
  const token = randomBytes(4).toString('hex');
  const config: NatsTransportConfig = {
    url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    service: `outbox-test-${token}`,
    subjectPrefix: `outbox-test-${token}.`,
    streamName: `GEN_OUTBOX_TEST_${token.toUpperCase()}`,
    requestTimeoutMs: 5_000,
  };
  const relays: OutboxRelayService[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('outbox_lease');
    dataSources.push(await openGenerationDatabase(database.url, 6), await openGenerationDatabase(database.url, 6));
    outbox = new OutboxRepository(dataSources[0]);
    nats = new NatsRpcClient(config);
    jetStream = new JetStreamEventPublisher(config, nats);
    jsm = await (await nats.connection()).jetstreamManager();
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((relay) => relay.onApplicationShutdown()));
    await dataSources[0].query(`DELETE FROM outbox`);
    await jsm.streams.purge(config.streamName).catch(() => undefined);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await jsm.streams.delete(config.streamName).catch(() => undefined);
    await nats.onApplicationShutdown();
    await Promise.all(dataSources.map((ds) => ds.destroy()));
    await database.drop();
  });

  function relay(owner: string, publisher: EventPublisher, options: { db?: DataSource; settings?: Partial<OutboxSettings> } = {}): OutboxRelayService {
    const created = new OutboxRelayService(
      new OutboxRepository(options.db ?? dataSources[0]),
      publisher,
      new InProcessBroadcaster(),
      { pollIntervalMs: 50, workerId: owner } as GenerationSettings,
      { ...DEFAULT_OUTBOX_SETTINGS, ...options.settings },
    );
    relays.push(created);
    return created;
  }

  const event = (): OutboxMessage => {
    const id = randomUUID();
    return { id, pattern: Events.generationCompleted, payload: { eventId: id, event: Events.generationCompleted, accountId: randomUUID(), record: { id: randomUUID() } } };
  };

  /** Commits events the way a job's transaction does (`lease`: held by that relay from the start). */
  async function commit(count: number, lease: OutboxLease | null = null, db = dataSources[0]): Promise<OutboxMessage[]> {
    const events = Array.from({ length: count }, event);
    await db.transaction((tx) => new OutboxRepository(db).append(tx.queryRunner as QueryRunner, events, lease));
    return events;
  }

  const rows = (ids: string[]) =>
    dataSources[0].query(
      `SELECT id, lease_owner, lease_expires_at > now() AS leased, published_at IS NOT NULL AS published, publish_attempts FROM outbox WHERE id = ANY($1::uuid[]) ORDER BY created_at`,
      [ids],
    ) as Promise<Array<{ id: string; lease_owner: string | null; leased: boolean | null; published: boolean; publish_attempts: number }>>;

  /** The message ids in the stream, in order. */
  async function streamed(): Promise<string[]> {
    const info = await jsm.streams.info(config.streamName);
    const ids: string[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
      const message = await jsm.streams.getMessage(config.streamName, { seq });
      ids.push(message.header.get('Nats-Msg-Id'));
    }
    return ids;
  }

  async function until(what: string, done: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
      await sleep(50);
    }
  }

  it('leases what it claims: nobody else gets those rows until the lease ends or is released', async () => {
    const events = await commit(3);
    const ids = events.map((e) => e.id);
    expect((await outbox.claim('relay-a', 10, 60_000)).map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(await outbox.claim('relay-b', 10, 60_000)).toEqual([]);
    expect((await rows(ids)).every((r) => r.lease_owner === 'relay-a' && r.leased)).toBe(true);

    // A failed publish releases the row at once and counts the attempt; only the holder can release it.
    await outbox.releaseLease('relay-b', [ids[0]]);
    expect(await outbox.claim('relay-b', 10, 60_000)).toEqual([]);
    await outbox.releaseLease('relay-a', [ids[0]]);
    const [again] = await outbox.claim('relay-b', 10, 60_000);
    expect(again).toMatchObject({ id: ids[0], pattern: Events.generationCompleted, payload: events[0].payload });
    expect((await rows([ids[0]]))[0]).toMatchObject({ lease_owner: 'relay-b', publish_attempts: 1 });

    // A lease that ends (its relay died) leaves the row to the next claim.
    const late = await commit(1);
    expect(await outbox.claim('relay-c', 10, 200)).toHaveLength(1);
    expect(await outbox.claim('relay-d', 10, 60_000)).toEqual([]);
    await sleep(300);
    expect((await outbox.claim('relay-d', 10, 60_000)).map((r) => r.id)).toEqual([late[0].id]);

    // Published rows are nobody's any more, and never claimed again.
    await outbox.markPublished(ids);
    expect((await rows(ids)).map((r) => [r.published, r.lease_owner])).toEqual(ids.map(() => [true, null]));
    await sleep(10);
    expect(await outbox.claim('relay-e', 10, 1)).toEqual([]);
  });

  it("publishes the events this process committed at once, leased to it, without any claim or poll", async () => {
    const publisher = new RecordingPublisher(jetStream);
    const fast = relay('relay-fast', publisher); // never started: no timer, no poll
    const events = await commit(3, { owner: 'relay-fast', leaseMs: 60_000 });
    expect(await outbox.claim('someone-else', 10, 60_000)).toEqual([]);
    fast.publish(events);
    await until('the events to be published', async () => (await rows(events.map((e) => e.id))).every((r) => r.published));
    expect((await streamed()).sort()).toEqual(events.map((e) => e.id).sort());
    expect(publisher.asked.sort()).toEqual(events.map((e) => e.id).sort());
  });

  it('publishes with no transaction open: a relay stuck in a publish does not block another', async () => {
    const stuck = new RecordingPublisher(jetStream);
    const slowRelay = relay('relay-slow', stuck, { settings: { batch: 1 } });
    const freeRelay = relay('relay-free', new RecordingPublisher(jetStream), { db: dataSources[1] });
    const [first, second] = [...(await commit(1)), ...(await commit(1))];

    const { reached, release } = stuck.hold();
    const slowDrain = slowRelay.drain();
    await reached; // relay-slow has claimed the older event and is inside its publish
    const sessions = (await dataSources[0].query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
    )) as Array<{ n: number }>;
    expect(sessions[0].n).toBe(0);
    expect((await rows([first.id]))[0]).toMatchObject({ lease_owner: 'relay-slow', leased: true, published: false });

    // The other relay claims around the leased row and publishes the rest, while the first publish still waits.
    await freeRelay.drain();
    expect((await rows([first.id, second.id])).map((r) => r.published)).toEqual([false, true]);
    expect(await streamed()).toEqual([second.id]);

    release();
    await slowDrain;
    expect((await rows([first.id, second.id])).map((r) => r.published)).toEqual([true, true]);
    expect((await streamed()).sort()).toEqual([first.id, second.id].sort());
  });

  it('a relay that died between publish and mark: its events go out again when the lease ends, and the stream keeps one copy', async () => {
    const [lost] = await commit(1);
    // The dying relay: claims (short lease), publishes, and is gone before it marks.
    const [claimed] = await outbox.claim('relay-dead', 10, 500);
    await jetStream.publish(claimed.pattern, claimed.payload, claimed.id);
    expect(await streamed()).toEqual([lost.id]);

    const publisher = new RecordingPublisher(jetStream);
    const survivor = relay('relay-alive', publisher, { db: dataSources[1] });
    await survivor.drain();
    expect(publisher.asked).toEqual([]); // still leased to the dead relay
    await until('the lease to end and the event to be published again', async () => {
      await survivor.drain();
      return (await rows([lost.id]))[0].published;
    });
    expect(publisher.asked).toEqual([lost.id]);
    expect(await streamed()).toEqual([lost.id]);
  });

  it('loses and doubles nothing under concurrency: four relays on two replicas, at once and by poll, with a relay that fails now and then', async () => {
    class Flaky extends EventPublisher {
      calls = 0;
      publish(pattern: string, payload: unknown, messageId: string): Promise<void> {
        return ++this.calls % 7 === 0 ? Promise.reject(new Error('NATS connection closed')) : jetStream.publish(pattern, payload, messageId);
      }
    }
    const owners = ['relay-0', 'relay-1', 'relay-2', 'relay-3'];
    const running = owners.map((owner, i) =>
      relay(owner, i === 3 ? new Flaky() : new RecordingPublisher(jetStream), { db: dataSources[i % 2], settings: { batch: 7, leaseMs: 2_000 } }),
    );
    for (const r of running) r.onApplicationBootstrap();

    const all: OutboxMessage[] = [];
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const owner = i % 5 === 4 ? null : owners[i % 4];
        // Committed by "a job's transaction" of one relay's process (published by it at once), or by a process with no relay (the poll's).
        const events = await commit(5, owner ? { owner, leaseMs: 2_000 } : null, dataSources[i % 2]);
        all.push(...events);
        if (owner) running[owners.indexOf(owner)].publish(events);
      }),
    );
    const ids = all.map((e) => e.id);
    await until('every event to be published', async () => (await rows(ids)).every((r) => r.published), 30_000);
    const inStream = await streamed();
    expect(inStream).toHaveLength(200);
    expect(new Set(inStream)).toEqual(new Set(ids));
  });
});
