import { randomUUID } from 'node:crypto';
import { billingTestKit } from '../test/billing-test-kit';
import { KeyCapsRepository } from './key-caps.repository';
import { KeyCapsService } from './key-caps.service';

/**
 * Integration (real PostgreSQL): spending caps per API key are enforced inside the group-committed
 * reserve (reserve_batch), exactly, whatever the concurrency, on one replica or several.
 */
describe('spending caps per key (PostgreSQL)', () => {
  const kit = billingTestKit('keycaps', { poolSize: 10, batches: { reserveBatchMax: 16, settleBatchMax: 16 } });
  const caps = () => new KeyCapsService(new KeyCapsRepository(kit.dataSource));

  const balance = async (accountId: string) => {
    const account = await kit.repository.findAccount(accountId);
    const { available, held } = account as { available: number; held: number };
    expect(await kit.repository.ledgerTotals(accountId)).toEqual({ available, held });
    return { available, held };
  };
  const spend = async (accountId: string, keyId: string) => {
    const [view] = await caps().list({ accountId, keyIds: [keyId] });
    return { today: view.spent_today, month: view.spent_this_month };
  };

  it('200 concurrent reserves of 1 credit against a daily cap of 10 hold exactly 10; the rest are refused with the cap', async () => {
    const accountId = await kit.openAccount(1000);
    const keyId = randomUUID();
    await caps().set({ accountId, keyId, perDay: 10 });
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => kit.repository.reserve(accountId, randomUUID(), 1, 1, 'm', keyId)));
    expect(outcomes.filter((o) => o.kind === 'reserved')).toHaveLength(10);
    const refused = outcomes.filter((o) => o.kind !== 'reserved');
    expect(refused).toHaveLength(190);
    for (const o of refused) expect(o).toEqual({ kind: 'cap', period: 'day', cap: 10, spent: 10, available: 990 });
    expect(await balance(accountId)).toEqual({ available: 990, held: 10 });
    expect(await spend(accountId, keyId)).toEqual({ today: 10, month: 10 });
  });

  it('two replicas reserving with one key at once still hold exactly the cap', async () => {
    const accountId = await kit.openAccount(1000);
    const keyId = randomUUID();
    await caps().set({ accountId, keyId, perDay: 30 });
    const other = await kit.replica();
    const outcomes = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? kit.repository : other).reserve(accountId, randomUUID(), 3, 3, 'm', keyId)),
    );
    expect(outcomes.filter((o) => o.kind === 'reserved')).toHaveLength(10);
    expect(await balance(accountId)).toEqual({ available: 970, held: 30 });
  });

  it('a hold that would pass the cap is refused even when a smaller one would fit; the monthly cap counts every day of the month', async () => {
    const accountId = await kit.openAccount(1000);
    const keyId = randomUUID();
    await caps().set({ accountId, keyId, perDay: 100, perMonth: 12 });
    // Spend on an earlier day of this month (the first, unless today is the first: then today).
    await kit.dataSource.query(
      `INSERT INTO key_spend (api_key_id, day, account_id, credits) VALUES ($1, date_trunc('month', (now() AT TIME ZONE 'UTC'))::date, $2, 5)`,
      [keyId, accountId],
    );
    expect(await kit.repository.reserve(accountId, randomUUID(), 4, 4, 'm', keyId)).toMatchObject({ kind: 'reserved' });
    expect(await kit.repository.reserve(accountId, randomUUID(), 4, 4, 'm', keyId)).toEqual({
      kind: 'cap',
      period: 'month',
      cap: 12,
      spent: 9,
      available: 996,
    });
    expect(await kit.repository.reserve(accountId, randomUUID(), 3, 3, 'm', keyId)).toMatchObject({ kind: 'reserved' });
  });

  it('a release (failed generation) gives its credits back to the cap; a capture keeps them spent', async () => {
    const accountId = await kit.openAccount(1000);
    const keyId = randomUUID();
    await caps().set({ accountId, keyId, perDay: 8 });
    const [a, b] = [randomUUID(), randomUUID()];
    await kit.repository.reserve(accountId, a, 4, 4, 'm', keyId);
    await kit.repository.reserve(accountId, b, 4, 4, 'm', keyId);
    expect(await kit.repository.reserve(accountId, randomUUID(), 4, 4, 'm', keyId)).toMatchObject({ kind: 'cap' });
    await kit.repository.settle(a, 'capture', null);
    await kit.repository.settle(b, 'release', 'generation failed');
    expect(await spend(accountId, keyId)).toEqual({ today: 4, month: 4 });
    expect(await kit.repository.reserve(accountId, randomUUID(), 4, 4, 'm', keyId)).toMatchObject({ kind: 'reserved' });
    // Settling again changes nothing (the spend is not given back twice).
    await kit.repository.settle(b, 'release', 'again');
    expect(await spend(accountId, keyId)).toEqual({ today: 8, month: 8 });
  });

  it('a cap lowered below what was spent today refuses the next reserve and gives nothing back', async () => {
    const accountId = await kit.openAccount(100);
    const keyId = randomUUID();
    await caps().set({ accountId, keyId, perDay: 50 });
    for (let i = 0; i < 5; i++) await kit.repository.reserve(accountId, randomUUID(), 4, 4, 'm', keyId);
    const before = await balance(accountId);
    expect(before).toEqual({ available: 80, held: 20 });
    await caps().set({ accountId, keyId, perDay: 10 });
    expect(await kit.repository.reserve(accountId, randomUUID(), 1, 1, 'm', keyId)).toEqual({
      kind: 'cap',
      period: 'day',
      cap: 10,
      spent: 20,
      available: 80,
    });
    expect(await balance(accountId)).toEqual(before);
    expect(await spend(accountId, keyId)).toEqual({ today: 20, month: 20 });
    // Removing the cap lets the key spend again; the month cap set alone keeps the day uncapped.
    expect(await caps().set({ accountId, keyId, perDay: null, perMonth: 1000 })).toMatchObject({ per_day: null, per_month: 1000 });
    expect(await kit.repository.reserve(accountId, randomUUID(), 1, 1, 'm', keyId)).toMatchObject({ kind: 'reserved' });
  });

  it("caps one key only: the account's other keys and holds without a key are not counted against it", async () => {
    const accountId = await kit.openAccount(100);
    const [capped, free] = [randomUUID(), randomUUID()];
    await caps().set({ accountId, keyId: capped, perDay: 4 });
    expect(await kit.repository.reserve(accountId, randomUUID(), 4, 4, 'm', free)).toMatchObject({ kind: 'reserved' });
    expect(await kit.repository.reserve(accountId, randomUUID(), 4, 4, 'm', null)).toMatchObject({ kind: 'reserved' });
    expect(await kit.repository.reserve(accountId, randomUUID(), 4, 4, 'm', capped)).toMatchObject({ kind: 'reserved' });
    expect(await kit.repository.reserve(accountId, randomUUID(), 4, 4, 'm', capped)).toMatchObject({ kind: 'cap' });
    expect(await kit.repository.reserve(accountId, randomUUID(), 4, 4, 'm', free)).toMatchObject({ kind: 'reserved' });
  });

  it('a job reserved again with a capped key is already reserved, not refused', async () => {
    const accountId = await kit.openAccount(100);
    const keyId = randomUUID();
    const jobId = randomUUID();
    await caps().set({ accountId, keyId, perDay: 4 });
    const first = await kit.repository.reserve(accountId, jobId, 4, 4, 'm', keyId);
    expect(first).toMatchObject({ kind: 'reserved' });
    expect(await kit.repository.reserve(accountId, jobId, 4, 4, 'm', keyId)).toMatchObject({ kind: 'already-reserved' });
  });

  it.each([
    [{ perDay: 0 }, 'per_day: must be a whole number of credits from 1 to 2147483647, or null for no cap.'],
    [{ perDay: -5 }, 'per_day: must be a whole number of credits from 1 to 2147483647, or null for no cap.'],
    [{ perMonth: 2.5 }, 'per_month: must be a whole number of credits from 1 to 2147483647, or null for no cap.'],
    [{ perMonth: '10' }, 'per_month: must be a whole number of credits from 1 to 2147483647, or null for no cap.'],
    [{ perDay: 2 ** 31 }, 'per_day: must be a whole number of credits from 1 to 2147483647, or null for no cap.'],
    [{}, 'Nothing to change: give per_day, per_month or both (null removes a cap).'],
  ])('refuses the caps %j and changes nothing', async (change, message) => {
    const accountId = await kit.openAccount(100);
    const keyId = randomUUID();
    await caps().set({ accountId, keyId, perDay: 7 });
    await expect(caps().set({ accountId, keyId, ...(change as object) })).rejects.toMatchObject({ code: 'validation_error', message });
    expect((await caps().list({ accountId, keyIds: [keyId] }))[0]).toMatchObject({ per_day: 7, per_month: null });
  });

  it("a key's caps cannot be set through another account, nor for an account billing does not know", async () => {
    const owner = await kit.openAccount(100);
    const other = await kit.openAccount(100);
    const keyId = randomUUID();
    await caps().set({ accountId: owner, keyId, perDay: 7 });
    await expect(caps().set({ accountId: other, keyId, perDay: 1000 })).rejects.toMatchObject({ code: 'not_found' });
    await expect(caps().set({ accountId: randomUUID(), keyId: randomUUID(), perDay: 1 })).rejects.toMatchObject({ code: 'not_found' });
    expect((await caps().list({ accountId: owner, keyIds: [keyId] }))[0]).toMatchObject({ per_day: 7 });
    expect(await caps().list({ accountId: other })).toEqual([]);
  });

  it('lists the caps with their reset times: the next UTC midnight and the first of next month', async () => {
    const accountId = await kit.openAccount(100);
    const keyId = randomUUID();
    await caps().set({ accountId, keyId, perDay: 9, perMonth: 90 });
    const [view] = await caps().list({ accountId });
    const now = new Date();
    expect(view).toEqual({
      key_id: keyId,
      per_day: 9,
      per_month: 90,
      spent_today: 0,
      spent_this_month: 0,
      day_resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1)).toISOString(),
      month_resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    });
  });
});
