import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { pgErrorCode } from '@gen/persistence';
import { billingTestKit } from '../test/billing-test-kit';
import type { BillingStore } from '../test/billing-store';
import type { ReserveOutcome, SettleOutcome } from './holds.repository';

/**
 * Integration (real PostgreSQL): reserves and settles are group-committed, a batch per statement,
 * with the outcome of each item what it would be alone. Batches here hold at most 8 items, so 60
 * calls make several batches, the next one gathering while one is written.
 */
describe('billing batches (PostgreSQL)', () => {
  const kit = billingTestKit('batches', { poolSize: 10, batches: { reserveBatchMax: 8, settleBatchMax: 8 } });
  const { openAccount } = kit;

  /**
   * Transactions that committed an account's ledger rows of these kinds. Every reserve and settle
   * that moves credits writes one ledger row in its transaction, and a row's xmin is the id of the
   * transaction that inserted it: this counts billing's commits.
   */
  const commits = async (accountIds: string[], kind: 'hold' | 'capture' | 'release'): Promise<number> => {
    const [row] = await kit.dataSource.query<{ n: number }[]>(
      `SELECT count(DISTINCT xmin::text)::int AS n FROM ledger WHERE account_id = ANY ($1::uuid[]) AND kind = $2`,
      [accountIds, kind],
    );
    return row.n;
  };

  /** The balance columns equal the ledger's sums; returns the balance. */
  const balanceOf = async (accountId: string) => {
    const account = await kit.repository.findAccount(accountId);
    expect(account).not.toBeNull();
    const { available, held } = account as { available: number; held: number };
    expect(await kit.repository.ledgerTotals(accountId)).toEqual({ available, held });
    return { available, held };
  };

  it('60 concurrent reserves on one account worth 25: the first 25 queued pass, the rest are refused, 4 commits', async () => {
    const accountId = await openAccount(100);
    const outcomes = await Promise.all(Array.from({ length: 60 }, () => kit.repository.reserve(accountId, randomUUID(), 4, 4)));
    // Items apply in queue order: each reserve sees the balance the previous one left.
    expect(outcomes.slice(0, 25).map((o) => o.kind === 'reserved' && o.available)).toEqual(Array.from({ length: 25 }, (_, i) => 96 - 4 * i));
    expect(outcomes.slice(25)).toEqual(Array.from({ length: 35 }, () => ({ kind: 'insufficient', available: 0 })));
    expect(await balanceOf(accountId)).toEqual({ available: 0, held: 100 });
    // 25 holds in batches of 8 (8 + 8 + 8 + 1): four transactions, where one per reserve made 25.
    expect(await commits([accountId], 'hold')).toBe(4);
  });

  it('two replicas reserving on one account at once hold exactly what the balance covers, never below zero', async () => {
    const accountId = await openAccount(203);
    const other = await kit.replica();
    const outcomes = await Promise.all(
      Array.from({ length: 80 }, (_, i) => (i % 2 === 0 ? kit.repository : other).reserve(accountId, randomUUID(), 5, 5)),
    );
    expect(outcomes.filter((o) => o.kind === 'reserved')).toHaveLength(40);
    expect(outcomes.filter((o) => o.kind === 'insufficient')).toHaveLength(40);
    for (const o of outcomes) if (o.kind !== 'no-account') expect(o.available).toBeGreaterThanOrEqual(0);
    expect(await balanceOf(accountId)).toEqual({ available: 3, held: 200 });
  });

  it('one batch of mixed accounts: each item gets its own outcome, and one commit serves them', async () => {
    const rich = await openAccount(100);
    const poor = await openAccount(2);
    const missing = randomUUID();
    const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const outcomes = await Promise.all([
      kit.repository.reserve(rich, a, 10, 10, 'pixel-flux-1'),
      kit.repository.reserve(poor, b, 4, 4, 'pixel-flux-1'),
      kit.repository.reserve(missing, c, 4, 4),
      kit.repository.reserve(rich, d, 6, 20, 'motion-lite-1'),
    ]);
    expect(outcomes).toEqual([
      { kind: 'reserved', holdId: expect.any(String), available: 90 },
      { kind: 'insufficient', available: 2 },
      { kind: 'no-account' },
      { kind: 'reserved', holdId: expect.any(String), available: 84 },
    ]);
    expect(await commits([rich], 'hold')).toBe(1);
    expect(await balanceOf(rich)).toEqual({ available: 84, held: 16 });
    expect(await balanceOf(poor)).toEqual({ available: 2, held: 0 });
    // The model of each hold and ledger row is kept.
    expect(await kit.repository.findHold(d)).toMatchObject({ amount: 6, status: 'held', modelId: 'motion-lite-1' });
    const [ledgerRow] = await kit.dataSource.query<{ model_id: string }[]>(`SELECT model_id FROM ledger WHERE job_id = $1`, [a]);
    expect(ledgerRow.model_id).toBe('pixel-flux-1');
    expect(await kit.repository.findHold(b)).toBeNull();
  });

  it('a job reserved twice in one batch, in a later batch, and on two replicas at once holds once', async () => {
    const accountId = await openAccount(50);
    const jobId = randomUUID();
    const [first, repeat] = await Promise.all([kit.repository.reserve(accountId, jobId, 4, 4), kit.repository.reserve(accountId, jobId, 4, 4)]);
    expect(first).toEqual({ kind: 'reserved', holdId: expect.any(String), available: 46 });
    const holdId = (first as { holdId: string }).holdId;
    expect(repeat).toEqual({ kind: 'already-reserved', holdId, available: 46 });
    expect(await kit.repository.reserve(accountId, jobId, 4, 4)).toEqual({ kind: 'already-reserved', holdId, available: 46 });

    const other = await kit.replica();
    const shared = randomUUID();
    const raced = await Promise.all(
      Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? kit.repository : other).reserve(accountId, shared, 4, 4)),
    );
    expect(raced.filter((o) => o.kind === 'reserved')).toHaveLength(1);
    expect(raced.filter((o) => o.kind === 'already-reserved')).toHaveLength(5);
    expect(new Set(raced.map((o) => (o as { holdId: string }).holdId)).size).toBe(1);
    expect(await balanceOf(accountId)).toEqual({ available: 42, held: 8 });
    // A repeat of a job whose hold was settled still answers "already reserved", and moves nothing.
    await kit.repository.settle(jobId, 'capture', null);
    expect(await kit.repository.reserve(accountId, jobId, 4, 4)).toEqual({ kind: 'already-reserved', holdId, available: 42 });
  });

  it('a value PostgreSQL refuses fails only its own item; the rest of its batch goes through', async () => {
    const accountId = await openAccount(20);
    const results = await Promise.allSettled([
      kit.repository.reserve(accountId, randomUUID(), 4, 4),
      kit.repository.reserve(accountId, 'not-a-uuid', 4, 4),
      kit.repository.reserve(accountId, randomUUID(), 4, 4),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(pgErrorCode((results[1] as PromiseRejectedResult).reason)).toBe('22P02');
    expect(await balanceOf(accountId)).toEqual({ available: 12, held: 8 });
    const settled = await Promise.allSettled([kit.repository.settle('nope', 'capture', null), kit.repository.settle(randomUUID(), 'capture', null)]);
    expect(settled.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
  });

  it('a batch the database kills mid-flight runs again with the same ids: each item is held once', async () => {
    const accountId = await openAccount(100);
    // Another session holds the account row: the batch waits on it, in flight.
    const blocker = new Client({ connectionString: kit.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM billing.accounts WHERE account_id = $1 FOR UPDATE`, [accountId]);
      const jobIds = [randomUUID(), randomUUID(), randomUUID()];
      const retried = jobIds.map((jobId) => kit.repository.reserve(accountId, jobId, 4, 4));
      await blocker.query('SELECT pg_terminate_backend($1)', [await waitingBackend(kit.dataSource, 'reserve_batch')]);
      // The retry waits on the same lock: a new backend, the same job ids.
      await waitingBackend(kit.dataSource, 'reserve_batch');
      await blocker.query('COMMIT');
      expect((await Promise.all(retried)).map((o) => o.kind)).toEqual(['reserved', 'reserved', 'reserved']);
    } finally {
      await blocker.end();
    }
    expect(await balanceOf(accountId)).toEqual({ available: 88, held: 12 });
    expect(await commits([accountId], 'hold')).toBe(1);
  });

  it('a batch killed past its retry budget fails each of its items (no caller hangs); the next batch goes through', async () => {
    const accountId = await openAccount(100);
    const blocker = new Client({ connectionString: kit.url });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query(`SELECT 1 FROM billing.accounts WHERE account_id = $1 FOR UPDATE`, [accountId]);
      let settled = false;
      const doomed = Promise.allSettled([1, 2, 3].map(() => kit.repository.reserve(accountId, randomUUID(), 4, 4))).finally(() => {
        settled = true;
      });
      // Each run of the doomed batch (the first and its retries) is killed while it waits.
      let pid: number | null = await waitingBackend(kit.dataSource, 'reserve_batch');
      const next = [1, 2].map(() => kit.repository.reserve(accountId, randomUUID(), 4, 4)); // gathers meanwhile
      const killed = new Set<number>();
      while (pid !== null && !settled && killed.size < 10) {
        if (!killed.has(pid)) {
          // (A pid already killed is still on its way out.)
          killed.add(pid);
          await blocker.query('SELECT pg_terminate_backend($1)', [pid]);
        }
        pid = await waitingBackend(kit.dataSource, 'reserve_batch', () => settled);
      }
      const failed = await doomed;
      expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(failed.map((r) => pgErrorCode((r as PromiseRejectedResult).reason))).toEqual(['57P01', '57P01', '57P01']);
      await blocker.query('COMMIT');
      expect((await Promise.all(next)).map((o) => o.kind)).toEqual(['reserved', 'reserved']);
    } finally {
      await blocker.end();
    }
    expect(await balanceOf(accountId)).toEqual({ available: 92, held: 8 });
  });

  it('captures and releases racing for the same holds on two replicas settle each hold exactly once', async () => {
    const accounts = [await openAccount(1000), await openAccount(1000), await openAccount(1000)];
    const other = await kit.replica();
    const jobs = Array.from({ length: 24 }, (_, i) => ({ jobId: randomUUID(), accountId: accounts[i % 3], amount: 1 + (i % 7) }));
    await Promise.all(jobs.map((j) => kit.repository.reserve(j.accountId, j.jobId, j.amount, j.amount)));

    // Per job: two captures (the finished event, and its redelivery) and two releases (a failed
    // submit's release, a failure event), spread over both replicas, in a different order per job.
    const calls: { jobId: string; kind: 'capture' | 'release'; result: Promise<SettleOutcome> }[] = [];
    jobs.forEach((job, i) => {
      const order: ('capture' | 'release')[] = i % 2 === 0 ? ['capture', 'release', 'capture', 'release'] : ['release', 'capture', 'release', 'capture'];
      order.forEach((kind, k) => {
        const replica: BillingStore = (i + k) % 2 === 0 ? kit.repository : other;
        calls.push({ jobId: job.jobId, kind, result: replica.settle(job.jobId, kind, kind === 'release' ? 'raced' : null) });
      });
    });
    const outcomes = await Promise.all(calls.map((c) => c.result));

    let charged = 0;
    for (const job of jobs) {
      const won = calls.map((c, i) => ({ ...c, outcome: outcomes[i] })).filter((c) => c.jobId === job.jobId && c.outcome.kind === 'settled');
      expect(won).toHaveLength(1);
      expect(won[0].outcome).toEqual({ kind: 'settled', amount: job.amount });
      const hold = await kit.repository.findHold(job.jobId);
      expect(hold?.status).toBe(won[0].kind === 'capture' ? 'captured' : 'released');
      if (won[0].kind === 'capture') charged += job.amount;
    }
    let available = 0;
    for (const accountId of accounts) {
      const balance = await balanceOf(accountId);
      expect(balance.held).toBe(0);
      available += balance.available;
    }
    expect(available).toBe(3000 - charged);
  });

  it('reserves and settles over many accounts in opposite orders on two replicas all complete (no deadlock)', async () => {
    const accounts = await Promise.all(Array.from({ length: 12 }, () => openAccount(10_000)));
    const other = await kit.replica({ reserveBatchMax: 5, settleBatchMax: 5 });
    const jobs = Array.from({ length: 96 }, (_, i) => ({ jobId: randomUUID(), accountId: accounts[i % 12] }));
    // One replica queues the accounts in ascending order, the other descending: lock order in the
    // batch functions (account id) is what keeps them from waiting on each other in a cycle.
    const forward = jobs.slice(0, 48);
    const backward = jobs.slice(48).reverse();
    const reserved = await Promise.all([
      ...forward.map((j) => kit.repository.reserve(j.accountId, j.jobId, 3, 3)),
      ...backward.map((j) => other.reserve(j.accountId, j.jobId, 3, 3)),
    ]);
    expect(reserved.every((o: ReserveOutcome) => o.kind === 'reserved')).toBe(true);
    const more = Array.from({ length: 48 }, (_, i) => ({ jobId: randomUUID(), accountId: accounts[11 - (i % 12)] }));
    const settledAndReserved = await Promise.all([
      ...forward.map((j) => other.settle(j.jobId, 'capture', null)),
      ...backward.map((j) => kit.repository.settle(j.jobId, 'release', 'failed')),
      ...more.map((j, i) => (i % 2 === 0 ? kit.repository : other).reserve(j.accountId, j.jobId, 2, 2)),
    ]);
    expect(settledAndReserved.slice(0, 96).every((o) => o.kind === 'settled')).toBe(true);
    expect(settledAndReserved.slice(96).every((o) => o.kind === 'reserved')).toBe(true);
    let total = 0;
    for (const accountId of accounts) {
      const balance = await balanceOf(accountId);
      total += balance.available + balance.held;
    }
    // 48 captures of 3 spent; the releases came back; 48 holds of 2 still held.
    expect(total).toBe(12 * 10_000 - 48 * 3);
  });

  it('commits per generation: one transaction per batch of reserves and one per batch of settles', async () => {
    const accountId = await openAccount(10_000);
    const wide = await kit.replica({ reserveBatchMax: 100, settleBatchMax: 100 });
    const jobs = Array.from({ length: 50 }, () => randomUUID());
    await Promise.all(jobs.map((jobId) => wide.reserve(accountId, jobId, 4, 4)));
    await Promise.all(jobs.map((jobId) => wide.settle(jobId, 'capture', null)));
    expect(await commits([accountId], 'hold')).toBe(1);
    expect(await commits([accountId], 'capture')).toBe(1);
    // Alone, a generation still costs two commits (its reserve, its settle), as before batching.
    const alone = randomUUID();
    await wide.reserve(accountId, alone, 4, 4);
    await wide.settle(alone, 'capture', null);
    expect(await commits([accountId], 'hold')).toBe(2);
    expect(await commits([accountId], 'capture')).toBe(2);
    expect(await balanceOf(accountId)).toEqual({ available: 10_000 - 51 * 4, held: 0 });
  });
});

/**
 * The pid of the session of this database waiting on a lock while it runs `statement`. Asked outside
 * any transaction: inside one, PostgreSQL answers every read of pg_stat_activity from its first snapshot.
 */
async function waitingBackend(db: DataSource, statement: string): Promise<number>;
async function waitingBackend(db: DataSource, statement: string, stop: () => boolean): Promise<number | null>;
/** The backend running `statement` that waits on a lock; null once `stop` says to give up looking. */
async function waitingBackend(db: DataSource, statement: string, stop?: () => boolean): Promise<number | null> {
  for (let attempt = 0; attempt < 500; attempt++) {
    if (stop?.()) return null;
    const rows = await db.query<{ pid: number }[]>(
      `SELECT pid FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock' AND query LIKE $1`,
      [`%${statement}%`],
    );
    if (rows.length > 0) return rows[0].pid;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no session waits in ${statement}`);
}
