import { createTestDatabase, TestDatabase } from '@gen/testing';
import type { DataSource } from 'typeorm';
import { openBillingDatabase } from '../billing.database';

/**
 * Integration (real PostgreSQL): `reserve_batch` and `settle_batch` as they write now (in bulk,
 * 1766500000000) against the same functions one item at a time (the migration undone), on two
 * databases fed the same seeded batches: every row they return and every row they leave (balances,
 * holds, ledger in its order, key spends, low-balance alerts) must be the same.
 */
describe('batch functions: in bulk, exactly as one item at a time (PostgreSQL)', () => {
  const ACCOUNTS = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b', '00000000-0000-4000-8000-00000000000c', '00000000-0000-4000-8000-00000000000d'];
  const UNKNOWN_ACCOUNT = '00000000-0000-4000-8000-0000000000ff';
  const KEYS = {
    daily: '00000000-0000-4000-9000-000000000001', // account a, 40 a day
    monthly: '00000000-0000-4000-9000-000000000002', // account b, 55 a month
    free: '00000000-0000-4000-9000-000000000003', // account c, no cap
    elsewhere: '00000000-0000-4000-9000-000000000004', // capped (5 a day) for account d, sent with account c
  };
  const JOBS = Array.from({ length: 70 }, (_, i) => `00000000-0000-4000-a000-${String(i).padStart(12, '0')}`);

  let bulkDatabase: TestDatabase;
  let perItemDatabase: TestDatabase;
  let bulk: DataSource;
  let perItem: DataSource;

  beforeAll(async () => {
    [bulkDatabase, perItemDatabase] = await Promise.all([createTestDatabase('bulkfn'), createTestDatabase('itemfn')]);
    [bulk, perItem] = await Promise.all([openBillingDatabase(bulkDatabase.url, 2), openBillingDatabase(perItemDatabase.url, 2)]);
    await perItem.undoLastMigration({ transaction: 'each' });
    const body = async (db: DataSource) => (await db.query(`SELECT prosrc FROM pg_proc WHERE oid = 'billing.reserve_batch'::regproc`))[0].prosrc as string;
    expect(await body(bulk)).toContain('v_reserved_at_crossing');
    expect(await body(perItem)).not.toContain('v_reserved_at_crossing');
    for (const db of [bulk, perItem]) await seed(db);
  });

  afterAll(async () => {
    await Promise.all([bulk?.destroy(), perItem?.destroy()]);
    await Promise.all([bulkDatabase?.drop(), perItemDatabase?.drop()]);
  });

  async function seed(db: DataSource): Promise<void> {
    const balances = [120, 300, 400, 30];
    const thresholds = [60, 250, null, 25];
    for (const [i, id] of ACCOUNTS.entries()) {
      await db.query(`INSERT INTO billing.accounts (account_id, plan, requests_per_minute, parallel_tasks) VALUES ($1, 'pro', 60, 4)`, [id]);
      await db.query(`UPDATE billing.accounts SET available = $2, low_balance_threshold = $3 WHERE account_id = $1`, [id, balances[i], thresholds[i]]);
    }
    await db.query(`INSERT INTO billing.key_caps (api_key_id, account_id, per_day, per_month) VALUES ($1, $2, 40, NULL), ($3, $4, NULL, 55), ($5, $6, 5, NULL)`, [
      KEYS.daily,
      ACCOUNTS[0],
      KEYS.monthly,
      ACCOUNTS[1],
      KEYS.elsewhere,
      ACCOUNTS[3],
    ]);
  }

  /** A small seeded generator (mulberry32): both databases get the same batches on every run. */
  function random(seed: number): (n: number) => number {
    let state = seed;
    return (n) => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
    };
  }

  function reserveBatch(pick: (n: number) => number): unknown[][] {
    const items = Array.from({ length: 1 + pick(20) }, () => {
      const at = pick(9);
      const account = at < 8 ? ACCOUNTS[at % 4] : UNKNOWN_ACCOUNT;
      const key = [KEYS.daily, KEYS.monthly, KEYS.free, KEYS.elsewhere, null][account === ACCOUNTS[0] ? pick(2) * 4 : account === ACCOUNTS[1] ? 1 + pick(2) * 3 : account === ACCOUNTS[2] ? 2 + pick(3) : 4];
      return [account, JOBS[pick(JOBS.length)], pick(16), pick(3) === 0 ? pick(25) : 0, `model-${pick(2)}`, key];
    });
    return Array.from({ length: 6 }, (_, column) => items.map((item) => item[column]));
  }

  function settleBatch(pick: (n: number) => number): unknown[][] {
    const items = Array.from({ length: 1 + pick(12) }, () => [JOBS[pick(JOBS.length)], pick(2) === 0 ? 'capture' : 'release', pick(3) === 0 ? null : `note ${pick(5)}`]);
    return Array.from({ length: 3 }, (_, column) => items.map((item) => item[column]));
  }

  const reserve = (db: DataSource, args: unknown[][]) =>
    db.query(
      `SELECT o_item, o_outcome, o_hold_id IS NOT NULL AS held, o_available, o_cap_period, o_cap, o_spent
       FROM billing.reserve_batch($1::uuid[], $2::uuid[], $3::integer[], $4::bigint[], $5::text[], $6::uuid[])`,
      args,
    );
  const settle = (db: DataSource, args: unknown[][]) => db.query(`SELECT o_item, o_amount FROM billing.settle_batch($1::uuid[], $2::text[], $3::text[])`, args);

  async function state(db: DataSource) {
    return {
      accounts: await db.query(`SELECT account_id, available, held, low_balance_alerted FROM billing.accounts ORDER BY account_id`),
      holds: await db.query(`SELECT job_id, account_id, amount, status, model_id, api_key_id, settled_at IS NOT NULL AS settled FROM billing.holds ORDER BY job_id`),
      ledger: await db.query(`SELECT account_id, kind, available_delta, held_delta, job_id, note, model_id FROM billing.ledger ORDER BY id`),
      spend: await db.query(`SELECT api_key_id, day, account_id, credits FROM billing.key_spend ORDER BY api_key_id, day`),
      alerts: (await db.query(`SELECT payload FROM billing.outbox WHERE pattern = 'account.low_balance' ORDER BY created_at, payload->>'accountId'`)).map(
        ({ payload }: { payload: Record<string, unknown> }) => ({ accountId: payload.accountId, available: payload.available, threshold: payload.threshold }),
      ),
    };
  }

  it('return the same rows and leave the same rows over 40 rounds of mixed reserves and settles', async () => {
    const pick = random(20261129);
    const outcomes = new Set<string>();
    for (let round = 0; round < 40; round++) {
      const reserves = reserveBatch(pick);
      const [bulkReserved, perItemReserved] = [await reserve(bulk, reserves), await reserve(perItem, reserves)];
      expect(bulkReserved).toEqual(perItemReserved);
      for (const row of bulkReserved as Array<{ o_outcome: string; o_cap_period: string | null }>) outcomes.add(row.o_cap_period ? `cap-${row.o_cap_period}` : row.o_outcome);
      const settles = settleBatch(pick);
      expect(await settle(bulk, settles)).toEqual(await settle(perItem, settles));
      if (round % 10 === 9) expect(await state(bulk)).toEqual(await state(perItem));
    }
    const final = await state(bulk);
    expect(final).toEqual(await state(perItem));
    // The rounds met every outcome and alert, so each path was compared.
    expect([...outcomes].sort()).toEqual(['already-reserved', 'cap-day', 'cap-month', 'insufficient', 'no-account', 'reserved']);
    expect(final.alerts.length).toBeGreaterThanOrEqual(2);
    expect(final.ledger.filter((row: { kind: string }) => row.kind === 'release').length).toBeGreaterThan(0);
  });

  it('refuse an outcome other than capture or release with the same error, changing nothing', async () => {
    const args = [[JOBS[0], JOBS[1]], ['capture', 'refund'], [null, null]];
    const before = await state(bulk);
    await expect(settle(bulk, args)).rejects.toThrow('settle_batch: outcome must be capture or release, got refund');
    await expect(settle(perItem, args)).rejects.toThrow('settle_batch: outcome must be capture or release, got refund');
    expect(await state(bulk)).toEqual(before);
  });
});
