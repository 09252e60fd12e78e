import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { EventPublisher, InProcessBroadcaster } from '@gen/transport';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from '../generation.database';
import type { GenerationSettings } from '../config/generation.tokens';
import { finishedEvent } from '../jobs/job-events';
import { jobStore, JobStore } from '../jobs/test/job-store';
import { JobOutcome } from '../jobs/job-finish.repository';
import { OutboxRelayService } from './outbox-relay.service';
import { OutboxRepository } from './outbox.repository';
import { DEFAULT_OUTBOX_SETTINGS } from '../config/outbox.settings';
import { batchFinishedEvent } from '../batches/batch-ending.service';

/** A broker that can be "down": publishes fail until it comes back. Records what it accepted. */
class FlakyBroker extends EventPublisher {
  up = false;
  readonly accepted: Array<{ pattern: string; messageId: string; payload: unknown }> = [];
  attempts = 0;

  publish(pattern: string, payload: unknown, messageId: string): Promise<void> {
    this.attempts++;
    if (!this.up) return Promise.reject(new Error('NATS connection closed'));
    this.accepted.push({ pattern, messageId, payload });
    return Promise.resolve();
  }
}

/**
 * Integration (real PostgreSQL): the event of a finished job is written with its final state, in
 * one transaction, and the relay publishes it whenever the broker is reachable again. Nothing is
 * lost while NATS is down, and nothing is published twice under one id.
 */
describe('OutboxRelayService (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;
  let repo: JobStore;
  let outbox: OutboxRepository;
  const settings = { pollIntervalMs: 50, workerId: 'relay-test' } as GenerationSettings;

  beforeAll(async () => {
    database = await createTestDatabase('outbox');
    db = await openGenerationDatabase(database.url, 5);
    repo = jobStore(db);
    outbox = new OutboxRepository(db);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await db.destroy();
    await database.drop();
  });

  async function finishedJob(status: 'completed' | 'failed'): Promise<string> {
    const id = randomUUID();
    const accountId = randomUUID();
    await repo.admit({ id, accountId, apiKeyId: randomUUID(), modelId: 'pixel-flux-1', type: 'TEXT_TO_IMAGE', prompt: 'p', credits: 4, parallelLimit: 1, webhookUrl: null }, 10);
    await repo.claim(accountId, 'w', 30_000, 1);
    const outcome =
      status === 'completed'
        ? ({ status, outputs: [{ key: 'ab/' + 'c'.repeat(32) + '.png', content_type: 'image/png', bytes: 1 }], keepSeconds: 3600 } satisfies JobOutcome)
        : ({ status, error: 'The generation failed. Your credits were refunded; please try again.' } satisfies JobOutcome);
    expect(await repo.finish(id, 'w', outcome, (j) => finishedEvent(j, 'http://cdn.test'))).not.toBeNull();
    return id;
  }

  const pending = async (ids: string[]) =>
    (await db.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL AND payload->'record'->>'id' = ANY($1)`, [ids]))[0].n as number;

  it('keeps events while the broker is down and publishes each exactly once, under its event id, when it is back', async () => {
    const broker = new FlakyBroker();
    const relay = new OutboxRelayService(outbox, broker, new InProcessBroadcaster(), settings, DEFAULT_OUTBOX_SETTINGS);
    const ids = [await finishedJob('completed'), await finishedJob('failed')];

    await relay.drain();
    await relay.drain();
    expect(broker.attempts).toBeGreaterThanOrEqual(2);
    expect(await pending(ids)).toBe(2);
    const attempts = await db.query(`SELECT publish_attempts FROM outbox WHERE payload->'record'->>'id' = ANY($1) ORDER BY publish_attempts DESC`, [ids]);
    expect(attempts[0].publish_attempts).toBeGreaterThanOrEqual(2);

    broker.up = true;
    await relay.drain();
    expect(await pending(ids)).toBe(0);
    const mine = broker.accepted.filter((m) => ids.includes((m.payload as { record: { id: string } }).record.id));
    expect(mine.map((m) => m.pattern).sort()).toEqual(['generation.completed', 'generation.failed']);
    for (const message of mine) expect(message.messageId).toBe((message.payload as { eventId: string }).eventId);

    await relay.drain();
    expect(broker.accepted.filter((m) => ids.includes((m.payload as { record: { id: string } }).record.id))).toHaveLength(2);
  });

  it('publishes a batch\'s batch.completed under its own subject, and broadcasts no generation change for it', async () => {
    const broker = new FlakyBroker();
    broker.up = true;
    const broadcaster = new InProcessBroadcaster();
    const broadcast = jest.spyOn(broadcaster, 'publish');
    const relay = new OutboxRelayService(outbox, broker, broadcaster, settings, DEFAULT_OUTBOX_SETTINGS);
    const at = new Date();
    const message = batchFinishedEvent({
      id: randomUUID(), account_id: randomUUID(), api_key_id: randomUUID(), plan: 'pro', parallel_limit: 2, status: 'completed',
      completion_window: '24h', completion_window_seconds: 86_400, expires_at: at, total_lines: 1, webhook_url: null, metadata: {},
      catalogue_version: null, credits_charged: '4', created_at: at, sealed_at: at, canceled_at: null, finished_at: at,
      final_counts: { total: 1, invalid: 0, waiting: 0, queued: 0, processing: 0, completed: 1, failed: 0, canceled: 0, expired: 0 },
    });
    await db.transaction((tx) => outbox.append(tx.queryRunner!, [message], null));
    await relay.drain();
    const published = broker.accepted.filter((m) => m.messageId === message.id);
    expect(published).toEqual([{ pattern: 'batch.completed', messageId: message.id, payload: message.payload }]);
    expect(published[0].payload).toMatchObject({ event: 'batch.completed', batch: { status: 'completed', credits_charged: 4 } });
    expect(broadcast).not.toHaveBeenCalled();
  });

  it('publishes on its own timer after start-up (a process that died before publishing)', async () => {
    const broker = new FlakyBroker();
    broker.up = true;
    const [id] = [await finishedJob('completed')];
    const relay = new OutboxRelayService(outbox, broker, new InProcessBroadcaster(), settings, DEFAULT_OUTBOX_SETTINGS);
    relay.onApplicationBootstrap();
    try {
      const deadline = Date.now() + 5_000;
      while ((await pending([id])) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await pending([id])).toBe(0);
    } finally {
      await relay.onApplicationShutdown();
    }
  });
});
