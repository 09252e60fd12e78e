import { randomUUID } from 'node:crypto';
import { AccountLowBalanceEvent, Events } from '@gen/contracts';
import { sqlRows } from '@gen/persistence';
import { EventPublisher } from '@gen/transport';
import { billingTestKit } from '../test/billing-test-kit';
import { BillingOutboxRepository } from './billing-outbox.repository';
import { LowBalanceRelay } from './low-balance-relay.service';
import { LowBalanceRepository } from './low-balance.repository';
import { checkThreshold, LowBalanceService } from './low-balance.service';

/** Records what it is asked to publish; fails while `failing` is set. */
class RecordingPublisher extends EventPublisher {
  readonly published: Array<{ pattern: string; payload: AccountLowBalanceEvent; messageId: string }> = [];
  failing = false;
  publish(pattern: string, payload: unknown, messageId: string): Promise<void> {
    if (this.failing) return Promise.reject(new Error('NATS is down'));
    this.published.push({ pattern, payload: payload as AccountLowBalanceEvent, messageId });
    return Promise.resolve();
  }
}

/**
 * Integration (real PostgreSQL): the crossing below an account's low-balance threshold is detected
 * by the trigger inside the statement that moves the balance, written to the outbox in the same
 * transaction, exactly once per crossing whatever the concurrency, and published by the relay even
 * when the process that committed it died before publishing.
 */
describe('low-balance alerts (PostgreSQL)', () => {
  const kit = billingTestKit('lowbalance', { poolSize: 10, batches: { reserveBatchMax: 16, settleBatchMax: 16 } });
  const repository = () => new LowBalanceRepository(kit.dataSource);
  const service = () => new LowBalanceService(repository());
  const events = (accountId: string) =>
    sqlRows<{ id: string; pattern: string; payload: AccountLowBalanceEvent; published_at: Date | null }>(
      kit.dataSource,
      `SELECT id, pattern, payload, published_at FROM outbox WHERE payload->>'accountId' = $1 ORDER BY created_at`,
      [accountId],
    );
  const outbox = () => new BillingOutboxRepository(kit.dataSource);
  const relay = (publisher: EventPublisher, leaseMs = 10_000) => new LowBalanceRelay(outbox(), publisher, { pollMs: 60_000, leaseMs, retentionMs: 3_600_000 });

  it('200 concurrent holds over two replicas crossing the threshold write exactly one event, with the balance after the crossing hold', async () => {
    const accountId = await kit.openAccount(300);
    expect(await service().set({ accountId, threshold: 150 })).toEqual({ threshold: 150, available: 300, below: false });
    const replica = await kit.replica({ reserveBatchMax: 7 });
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? replica : kit.repository).reserve(accountId, randomUUID(), 1, 1, 'm')),
    );
    expect(outcomes.every((o) => o.kind === 'reserved')).toBe(true);
    const rows = await events(accountId);
    expect(rows).toHaveLength(1);
    expect(rows[0].pattern).toBe(Events.accountLowBalance);
    expect(rows[0].payload).toEqual({
      eventId: rows[0].id,
      event: 'account.low_balance',
      accountId,
      threshold: 150,
      available: 149,
      crossedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
    });
    expect(await service().get({ accountId })).toEqual({ threshold: 150, available: 100, below: true });
  });

  it('a top-up back to the threshold re-arms it: the next fall below alerts again; a top-up that stays below does not', async () => {
    const accountId = await kit.openAccount(20);
    await service().set({ accountId, threshold: 10 });
    await kit.repository.reserve(accountId, randomUUID(), 15, 15, 'm'); // 5 left: crossing 1
    await kit.repository.adjust(accountId, 3, 'top-up below the threshold'); // 8: still below, not re-armed
    await kit.repository.reserve(accountId, randomUUID(), 1, 1, 'm'); // 7: same crossing
    expect(await events(accountId)).toHaveLength(1);
    await kit.repository.adjust(accountId, 3, 'top-up to exactly the threshold'); // 10: re-armed
    expect((await service().get({ accountId })).below).toBe(false);
    await kit.repository.reserve(accountId, randomUUID(), 2, 2, 'm'); // 8: crossing 2
    const rows = await events(accountId);
    expect(rows.map((r) => r.payload.available)).toEqual([5, 8]);
  });

  it('a release (refund) that brings the balance back re-arms; a capture moves nothing and alerts nothing', async () => {
    const accountId = await kit.openAccount(10);
    await service().set({ accountId, threshold: 5 });
    const job = randomUUID();
    await kit.repository.reserve(accountId, job, 6, 6, 'm'); // 4: crossing
    await kit.repository.settle(job, 'release', 'failed'); // 10: re-armed
    const second = randomUUID();
    await kit.repository.reserve(accountId, second, 7, 7, 'm'); // 3: crossing
    await kit.repository.settle(second, 'capture', null);
    expect((await events(accountId)).map((r) => r.payload.available)).toEqual([4, 3]);
  });

  it('setting a threshold above the balance alerts nothing by itself; the next hold does; 0 or null turns alerts off', async () => {
    const accountId = await kit.openAccount(50);
    await service().set({ accountId, threshold: 100 });
    expect(await events(accountId)).toHaveLength(0);
    await kit.repository.reserve(accountId, randomUUID(), 1, 1, 'm');
    expect(await events(accountId)).toHaveLength(1);
    expect(await service().set({ accountId, threshold: 0 })).toEqual({ threshold: null, available: 49, below: false });
    await kit.repository.reserve(accountId, randomUUID(), 1, 1, 'm');
    expect(await events(accountId)).toHaveLength(1);
  });

  it('refuses a negative, fractional, non-numeric or too large threshold and changes nothing', async () => {
    const accountId = await kit.openAccount(50);
    await service().set({ accountId, threshold: 20 });
    for (const bad of [-1, 1.5, '10', 2_147_483_648, Number.NaN]) {
      await expect(service().set({ accountId, threshold: bad as number })).rejects.toMatchObject({ code: 'validation_error' });
    }
    expect((await service().get({ accountId })).threshold).toBe(20);
    expect(checkThreshold(0)).toBeNull();
    expect(checkThreshold(null)).toBeNull();
    await expect(service().set({ accountId: randomUUID(), threshold: 5 })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('an event whose process died between commit and publish is published by another relay once its lease ends; a failed publish is retried', async () => {
    const accountId = await kit.openAccount(10);
    await service().set({ accountId, threshold: 5 });
    await kit.repository.reserve(accountId, randomUUID(), 6, 6, 'm');
    // The process that committed the crossing claims the row, then dies before publishing.
    const claimedByDead = await outbox().claim('dead-relay', 50, 300);
    expect(claimedByDead.map((m) => m.id)).toContain((await events(accountId))[0].id);

    const publisher = new RecordingPublisher();
    await relay(publisher).drain(); // the lease still runs: not taken over yet
    expect(publisher.published.filter((p) => p.payload.accountId === accountId)).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 350));

    publisher.failing = true;
    await relay(publisher).drain();
    expect((await events(accountId))[0].published_at).toBeNull();

    publisher.failing = false;
    await relay(publisher).drain();
    const mine = publisher.published.filter((p) => p.payload.accountId === accountId);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ pattern: 'account.low_balance', messageId: mine[0].payload.eventId, payload: { available: 4, threshold: 5 } });
    expect((await events(accountId))[0].published_at).not.toBeNull();
    await relay(publisher).drain(); // published rows are never sent again
    expect(publisher.published.filter((p) => p.payload.accountId === accountId)).toHaveLength(1);
  });
});
