import { randomUUID } from 'node:crypto';
import { billingTestKit } from '../test/billing-test-kit';

/** Integration: real PostgreSQL. Money must hold under concurrency, with no in-process lock. */
describe('Holds and accounts (PostgreSQL)', () => {
  const kit = billingTestKit('billing', { poolSize: 40 });
  const { openAccount } = kit;

  it('200 concurrent reserves on a balance covering exactly 10: 10 succeed, balance 0, ledger consistent', async () => {
    const accountId = await openAccount(40);
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, () => kit.repository.reserve(accountId, randomUUID(), 4, 4)),
    );
    expect(outcomes.filter((o) => o.kind === 'reserved')).toHaveLength(10);
    expect(outcomes.filter((o) => o.kind === 'insufficient')).toHaveLength(190);
    const account = await kit.repository.findAccount(accountId);
    expect(account).toMatchObject({ available: 0, held: 40 });
    expect(await kit.repository.ledgerTotals(accountId)).toEqual({ available: 0, held: 40 });
  });

  it('reserving the same job twice holds once', async () => {
    const accountId = await openAccount(10);
    const jobId = randomUUID();
    const [a, b] = await Promise.all([kit.repository.reserve(accountId, jobId, 4, 4), kit.repository.reserve(accountId, jobId, 4, 4)]);
    expect([a.kind, b.kind].sort()).toEqual(['already-reserved', 'reserved']);
    expect(await kit.repository.findAccount(accountId)).toMatchObject({ available: 6, held: 4 });
  });

  it('refuses below the minimum even when the price would fit', async () => {
    const accountId = await openAccount(5);
    expect(await kit.repository.reserve(accountId, randomUUID(), 4, 8)).toEqual({ kind: 'insufficient', available: 5 });
  });

  it('capture and release settle a hold exactly once, also when replayed concurrently', async () => {
    const accountId = await openAccount(20);
    const captured = randomUUID();
    const released = randomUUID();
    await kit.repository.reserve(accountId, captured, 4, 4);
    await kit.repository.reserve(accountId, released, 6, 6);
    const settles = await Promise.all([
      ...Array.from({ length: 5 }, () => kit.repository.settle(captured, 'capture', null)),
      ...Array.from({ length: 5 }, () => kit.repository.settle(released, 'release', 'failed')),
    ]);
    expect(settles.filter((s) => s.kind === 'settled')).toHaveLength(2);
    // 20 - 4 charged; the 6 came back.
    expect(await kit.repository.findAccount(accountId)).toMatchObject({ available: 16, held: 0 });
    expect(await kit.repository.ledgerTotals(accountId)).toEqual({ available: 16, held: 0 });
    // A capture after a release (or the reverse) changes nothing.
    expect(await kit.repository.settle(released, 'capture', null)).toEqual({ kind: 'nothing-to-settle' });
  });
});
