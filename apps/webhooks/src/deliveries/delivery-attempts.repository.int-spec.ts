import { randomUUID } from 'node:crypto';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { newDeliveryId } from '@gen/webhook-signature';
import type { DataSource } from 'typeorm';
import { newDelivery } from '../test/deliveries';
import { openWebhooksDatabase } from '../webhooks.database';
import { deliveryStore, DeliveryStore } from '../test/delivery-store';
import { NewDelivery } from './delivery-attempt';

/** The claim/lease/record queries against real Postgres: what makes the dispatcher safe to run twice. */
describe('DeliveryStore', () => {
  let database: TestDatabase;
  let db: DataSource;
  let repo: DeliveryStore;
  const T = Date.UTC(2030, 0, 1, 0, 0, 0);
  const LEASE = 10_000;

  beforeAll(async () => {
    database = await createTestDatabase('whrepo');
    db = await openWebhooksDatabase(database.url, 6);
    repo = deliveryStore(db);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  const delivery = (overrides: Partial<NewDelivery> = {}): NewDelivery => newDelivery({ firstAttemptAt: T, ...overrides });
  /** Stores one delivery unclaimed (as the CLI does, or a process with no free slot); true if stored. */
  const store = async (d: NewDelivery) => (await repo.insert([d])).inserted.has(d.id);
  const row = async (id: string) =>
    (await db.query(`SELECT status, attempts_made, next_attempt_at, lease_token, finished_at FROM deliveries WHERE id = $1`, [id]))[0];
  const attempts = (id: string) =>
    db.query(`SELECT number, duration_ms, status_code, error_class, error FROM attempts WHERE delivery_id = $1 ORDER BY number`, [id]);
  const failed = (at: number, nextAttemptAt: number | null) => ({
    startedAt: at, durationMs: 12, statusCode: 500, errorClass: 'http_status' as const, error: 'HTTP 500', succeeded: false, nextAttemptAt,
  });

  it('an event seen twice makes one delivery', async () => {
    const d = delivery();
    expect(await store(d)).toBe(true);
    expect(await store({ ...d, id: newDeliveryId() })).toBe(false);
    expect((await db.query(`SELECT count(*)::int AS n FROM deliveries WHERE event_id = $1`, [d.eventId]))[0].n).toBe(1);
  });

  it('two replicas claiming the same due delivery at once make one attempt', async () => {
    const d = delivery();
    await store(d);
    const claims = await Promise.all(Array.from({ length: 6 }, () => repo.claim([d.id], T, LEASE)));
    const winners = claims.flat();
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ deliveryId: d.id, number: 1, url: d.url });
    expect(winners[0]!.body.equals(d.body)).toBe(true);
    expect(await attempts(d.id)).toEqual([{ number: 1, duration_ms: null, status_code: null, error_class: null, error: null }]);
  });

  it('does not claim before the due time', async () => {
    const d = delivery({ firstAttemptAt: T + 1_000 });
    await store(d);
    expect(await repo.claim([d.id], T + 900, LEASE)).toEqual([]);
    expect(await repo.claim([d.id], T + 1_000, LEASE)).toHaveLength(1);
  });

  it('records failures with the next due time, then success ends the delivery', async () => {
    const d = delivery();
    await store(d);
    const [a1] = await repo.claim([d.id], T, LEASE);
    expect(await repo.recordAttempt(a1!, failed(T, T + 2_012))).toBe(true);
    expect(await row(d.id)).toMatchObject({ status: 'pending', attempts_made: 1, next_attempt_at: new Date(T + 2_012), lease_token: null });
    expect(await repo.claim([d.id], T + 1_990, LEASE)).toEqual([]);
    const [a2] = await repo.claim([d.id], T + 2_012, LEASE);
    expect(a2!.number).toBe(2);
    expect(
      await repo.recordAttempt(a2!, { startedAt: T + 2_012, durationMs: 5, statusCode: 204, errorClass: null, error: null, succeeded: true, nextAttemptAt: null }),
    ).toBe(true);
    expect(await row(d.id)).toMatchObject({ status: 'succeeded', attempts_made: 2, next_attempt_at: null, finished_at: new Date(T + 2_017) });
    expect((await attempts(d.id)).map((a: { status_code: number }) => a.status_code)).toEqual([500, 204]);
    expect(await repo.claim([d.id], T + 60_000, LEASE)).toEqual([]);
  });

  it('never makes a fourth attempt', async () => {
    const d = delivery();
    await store(d);
    let at = T;
    for (let n = 1; n <= 3; n++) {
      const [a] = await repo.claim([d.id], at, LEASE);
      expect(a!.number).toBe(n);
      await repo.recordAttempt(a!, failed(at, n < 3 ? at + 1 : null));
      at += 1;
    }
    expect(await row(d.id)).toMatchObject({ status: 'failed', attempts_made: 3, next_attempt_at: null });
    expect(await repo.claim([d.id], T + 60_000, LEASE)).toEqual([]);
  });

  it('an attempt whose process died resumes after the lease, counted and marked interrupted', async () => {
    const d = delivery();
    await store(d);
    const [a1] = await repo.claim([d.id], T, LEASE);
    expect(await repo.claim([d.id], T + LEASE - 1, LEASE)).toEqual([]);
    expect(await repo.dueBy(T + LEASE - 1, T + LEASE + 5_000, 100)).not.toContainEqual(expect.objectContaining({ id: d.id }));
    expect(await repo.dueBy(T + LEASE, T + LEASE, 100)).toContainEqual(expect.objectContaining({ id: d.id }));
    const [a2] = await repo.claim([d.id], T + LEASE, LEASE);
    expect(a2!.number).toBe(2);
    expect((await attempts(d.id))[0]).toMatchObject({ number: 1, error_class: 'interrupted' });
    // The first process comes back late: its outcome no longer changes the delivery.
    expect(await repo.recordAttempt(a1!, failed(T, T + 2_000))).toBe(false);
    expect(await row(d.id)).toMatchObject({ status: 'pending', attempts_made: 2, lease_token: a2!.leaseToken });
  });

  it('a delivery whose third attempt was interrupted is failed, not sent again', async () => {
    const d = delivery();
    await store(d);
    let at = T;
    for (let n = 1; n <= 3; n++) {
      expect((await repo.claim([d.id], at, LEASE))[0]!.number).toBe(n);
      at += LEASE;
    }
    expect(await repo.claim([d.id], at + LEASE, LEASE)).toEqual([]);
    const exhausted = await repo.failExhausted(at + LEASE, 100);
    expect(exhausted).toContainEqual(expect.objectContaining({ id: d.id, jobId: d.jobId }));
    expect(await row(d.id)).toMatchObject({ status: 'failed', attempts_made: 3 });
    expect((await attempts(d.id)).map((a: { error_class: string }) => a.error_class)).toEqual(['interrupted', 'interrupted', 'interrupted']);
  });

  it('a claim given back (nothing sent) does not count', async () => {
    const d = delivery();
    await store(d);
    const [a1] = await repo.claim([d.id], T, LEASE);
    expect(await repo.releaseClaim(a1!, T + 1_000)).toBe(true);
    expect(await row(d.id)).toMatchObject({ attempts_made: 0, next_attempt_at: new Date(T + 1_000), lease_token: null });
    expect(await attempts(d.id)).toEqual([]);
    expect((await repo.claim([d.id], T + 1_000, LEASE))[0]!.number).toBe(1);
  });

  it('one pending redelivery per generation', async () => {
    const original = delivery();
    await store(original);
    const redelivery = () =>
      delivery({ eventId: null, redeliveryOf: original.id, jobId: original.jobId, accountId: original.accountId });
    expect(await store(redelivery())).toBe(true);
    expect(await store(redelivery())).toBe(false);
  });

  describe('insert and recordAttempts (the dispatcher\'s grouped writes)', () => {
    it('inserts a batch in one statement, the first ones already claimed for attempt 1, and skips events seen before', async () => {
      const seen = delivery();
      await store(seen);
      const batch = [delivery(), delivery(), { ...seen, id: newDeliveryId() }, delivery()];
      // Claim three: the third is the duplicate, so two end up claimed.
      const { inserted, claimed } = await repo.insert(batch, { count: 3, at: T, leaseMs: LEASE });
      expect([...inserted].sort()).toEqual([batch[0]!.id, batch[1]!.id, batch[3]!.id].sort());
      expect(claimed.map((c) => [c.deliveryId, c.number, c.dueAt])).toEqual([
        [batch[0]!.id, 1, T],
        [batch[1]!.id, 1, T],
      ]);
      expect(new Set(claimed.map((c) => c.leaseToken)).size).toBe(1);
      expect(await row(batch[0]!.id)).toMatchObject({ status: 'pending', attempts_made: 1, lease_token: claimed[0]!.leaseToken });
      expect(await attempts(batch[0]!.id)).toMatchObject([{ number: 1, duration_ms: null, error_class: null }]);
      // Not claimed: due at once, for a claim of its own.
      expect(await row(batch[3]!.id)).toMatchObject({ status: 'pending', attempts_made: 0, lease_token: null });
      expect(await attempts(batch[3]!.id)).toEqual([]);
      expect((await repo.claim([batch[3]!.id], T, LEASE))[0]!.number).toBe(1);
      // A claimed one is not claimed twice.
      expect(await repo.claim([batch[0]!.id], T, LEASE)).toEqual([]);
      // The body bytes are stored as given.
      const stored = (await db.query(`SELECT body FROM deliveries WHERE id = $1`, [batch[1]!.id]))[0] as { body: Buffer };
      expect(stored.body.equals(batch[1]!.body)).toBe(true);
    });

    it('each delivery of a batch keeps its own body bytes, whatever their lengths and the rows skipped between them', async () => {
      const seen = delivery({ body: Buffer.from('{"seen":true}') });
      await store(seen);
      const bodies = [Buffer.from('{"a":1}'), Buffer.from([0x00, 0xff, 0x5c, 0x22, 0x2c, 0x7b]), Buffer.alloc(70_000, 0x61), Buffer.from('{"é":"\\"}')];
      const batch = [
        delivery({ body: bodies[0]! }),
        delivery({ body: bodies[1]! }),
        delivery({ eventId: seen.eventId, body: Buffer.from('{"again":true}') }),
        delivery({ body: bodies[2]! }),
        delivery({ body: bodies[3]! }),
      ];
      const { inserted } = await repo.insert(batch, { count: 2, at: T, leaseMs: LEASE });
      expect(inserted.has(batch[2]!.id)).toBe(false);
      for (const d of [batch[0]!, batch[1]!, batch[3]!, batch[4]!]) {
        const stored = (await db.query(`SELECT body FROM deliveries WHERE id = $1`, [d.id]))[0] as { body: Buffer };
        expect(stored.body.equals(d.body)).toBe(true);
      }
      const kept = (await db.query(`SELECT body FROM deliveries WHERE id = $1`, [seen.id]))[0] as { body: Buffer };
      expect(kept.body.toString()).toBe('{"seen":true}');
    });

    it('a delivery stored unclaimed starts with a claim of its own, once, whoever claims it first', async () => {
      const batch = [delivery(), delivery(), delivery()];
      await repo.insert(batch);
      // Another replica's poll found the second one first.
      const [theirs] = await repo.claim([batch[1]!.id], T, LEASE);
      expect(theirs!.number).toBe(1);
      const mine = await repo.claim(batch.map((d) => d.id), T + 5, LEASE);
      expect(mine.map((c) => c.deliveryId).sort()).toEqual([batch[0]!.id, batch[2]!.id].sort());
      const first = mine.find((c) => c.deliveryId === batch[0]!.id)!;
      expect(first).toMatchObject({ number: 1, dueAt: T, url: batch[0]!.url, apiKeyId: batch[0]!.apiKeyId });
      expect(first.body.equals(batch[0]!.body)).toBe(true);
      expect(await row(batch[0]!.id)).toMatchObject({ attempts_made: 1, lease_token: first.leaseToken });
      expect(await row(batch[1]!.id)).toMatchObject({ attempts_made: 1, lease_token: theirs!.leaseToken });
      expect(await attempts(batch[2]!.id)).toMatchObject([{ number: 1, duration_ms: null }]);
      // Claimed once: not taken again.
      expect(await repo.claim(batch.map((d) => d.id), T + 10, LEASE)).toEqual([]);
    });

    it('keeps two redeliveries of one job in one batch to one', async () => {
      const original = delivery();
      await store(original);
      const redelivery = () => delivery({ eventId: null, redeliveryOf: original.id, jobId: original.jobId, accountId: original.accountId });
      const { inserted } = await repo.insert([redelivery(), redelivery()], { count: 2, at: T, leaseMs: LEASE });
      expect(inserted.size).toBe(1);
    });

    it('records many outcomes in one statement, each only under its own lease', async () => {
      const batch = [delivery(), delivery(), delivery()];
      const { claimed } = await repo.insert(batch, { count: 3, at: T, leaseMs: LEASE });
      const [ok, retry, stolen] = claimed as [(typeof claimed)[0], (typeof claimed)[0], (typeof claimed)[0]];
      // The third lost its lease (its process was presumed dead) and was claimed again.
      const [again] = await repo.claim([stolen.deliveryId], T + LEASE, LEASE);
      expect(again!.number).toBe(2);
      const recorded = await repo.recordAttempts([
        { claim: ok, result: { startedAt: T, durationMs: 7, statusCode: 204, errorClass: null, error: null, succeeded: true, nextAttemptAt: null } },
        { claim: retry, result: failed(T, T + 2_012) },
        { claim: stolen, result: failed(T, T + 2_012) },
      ]);
      expect([...recorded].sort()).toEqual([ok.deliveryId, retry.deliveryId].sort());
      expect(await row(ok.deliveryId)).toMatchObject({ status: 'succeeded', attempts_made: 1, next_attempt_at: null, lease_token: null });
      expect((await row(ok.deliveryId)).finished_at).toEqual(new Date(T + 7));
      expect(await attempts(ok.deliveryId)).toMatchObject([{ number: 1, duration_ms: 7, status_code: 204, error_class: null }]);
      expect(await row(retry.deliveryId)).toMatchObject({ status: 'pending', attempts_made: 1, next_attempt_at: new Date(T + 2_012), lease_token: null });
      expect(await row(stolen.deliveryId)).toMatchObject({ status: 'pending', attempts_made: 2, lease_token: again!.leaseToken });
      // The late outcome is still the truth about attempt 1 (it had been marked interrupted).
      expect((await attempts(stolen.deliveryId))[0]).toMatchObject({ number: 1, status_code: 500, error_class: 'http_status' });
    });

    it('commits outcomes without waiting for the WAL flush, and leaves the session as it was', async () => {
      const { claimed } = await repo.insert([delivery()], { count: 1, at: T, leaseMs: LEASE });
      await db.transaction(async (tx) => {
        const local = deliveryStore(tx as unknown as DataSource);
        await local.recordAttempts([{ claim: claimed[0]!, result: failed(T, T + 2_000) }]);
        expect((await tx.query(`SHOW synchronous_commit`))[0]).toEqual({ synchronous_commit: 'off' });
      });
      expect((await db.query(`SHOW synchronous_commit`))[0]).toEqual({ synchronous_commit: 'on' });
    });
  });

  it('lists a job only for its own account', async () => {
    const d = delivery();
    const jobId = d.jobId as string;
    await store(d);
    expect((await repo.listForJob(d.accountId, jobId)).map((x) => x.id)).toEqual([d.id]);
    expect(await repo.listForJob(randomUUID(), jobId)).toEqual([]);
    expect(await repo.attemptsOf(randomUUID(), [d.id])).toEqual([]);
  });

  describe('test events', () => {
    const testEvent = (overrides: Partial<NewDelivery> = {}) =>
      delivery({ eventId: `test_${randomUUID().replace(/-/g, '')}`, jobId: null, test: true, ...overrides });

    it('are claimed with their test flag, one in progress per key, and listed per key of the account, newest first', async () => {
      const apiKeyId = randomUUID();
      const accountId = randomUUID();
      const first = testEvent({ apiKeyId, accountId });
      const { claimed } = await repo.insert([first], { count: 1, at: T, leaseMs: LEASE });
      expect(claimed).toEqual([expect.objectContaining({ deliveryId: first.id, test: true, jobId: null, number: 1 })]);
      // A second test of the same key while the first is pending is refused; another key's is not.
      expect(await store(testEvent({ apiKeyId, accountId }))).toBe(false);
      expect(await store(testEvent({ accountId }))).toBe(true);
      expect(await repo.recordAttempt(claimed[0]!, { ...failed(T, null), statusCode: 200, errorClass: null, error: null, succeeded: true })).toBe(true);
      const second = testEvent({ apiKeyId, accountId, firstAttemptAt: T + 1_000 });
      expect(await store(second)).toBe(true);
      const [retry] = await repo.claim([second.id], T + 1_000, LEASE);
      expect(retry).toMatchObject({ test: true, jobId: null });

      expect((await repo.listTestsForKey(accountId, apiKeyId, 10)).map((d) => d.id)).toEqual([second.id, first.id]);
      expect((await repo.listTestsForKey(accountId, apiKeyId, 1)).map((d) => d.id)).toEqual([second.id]);
      expect(await repo.listTestsForKey(randomUUID(), apiKeyId, 10)).toEqual([]);
      // Generation deliveries of the key are not tests.
      await store(delivery({ apiKeyId, accountId }));
      expect(await repo.listTestsForKey(accountId, apiKeyId, 10)).toHaveLength(2);
    });

    it('a test has no generation, and a generation delivery has one', async () => {
      await expect(store(testEvent({ jobId: randomUUID() }))).rejects.toThrow(/deliveries_test_has_no_job/);
      await expect(store(delivery({ jobId: null }))).rejects.toThrow(/deliveries_test_has_no_job/);
    });
  });
});
