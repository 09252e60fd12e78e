import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { DomainError, InsufficientCreditsError } from '@gen/errors';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openAuthDatabase } from '../gateway.database';
import { IdempotencyRepository, StoredResponse } from './idempotency.repository';
import { IdempotencyService, parseIdempotencyKey } from './idempotency.service';

/** Integration: real PostgreSQL, two pools standing for two gateway replicas. */
describe('IdempotencyService (PostgreSQL)', () => {
  let database: TestDatabase;
  let dataSources: DataSource[];
  let services: IdempotencyService[];

  beforeAll(async () => {
    database = await createTestDatabase('idempotency');
    dataSources = [await openAuthDatabase(database.url, 15), await openAuthDatabase(database.url, 15)];
    services = dataSources.map((ds) => new IdempotencyService(new IdempotencyRepository(ds)));
  });
  afterAll(async () => {
    await Promise.all(dataSources.map((ds) => ds.destroy()));
    await database.drop();
  });

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const request = (accountId: string, key: string, fingerprint = 'body-a', lockMs = 10_000) => ({ accountId, key, fingerprint, lockMs });
  const response = (jobId: string, status = 202): StoredResponse => ({
    status,
    body: JSON.stringify({ id: jobId, status: 'queued' }),
    location: `/api/v1/generations/${jobId}`,
  });

  /** A fake "job store": run creates the job (once per job id), lookUp reads it. */
  function jobs(runDelayMs = 50) {
    const created = new Map<string, StoredResponse>();
    const runs: string[] = [];
    return {
      created,
      runs,
      run: async (jobId: string) => {
        runs.push(jobId);
        await sleep(runDelayMs);
        created.set(jobId, response(jobId));
        return response(jobId);
      },
      lookUp: async (jobId: string) => created.get(jobId) ?? null,
    };
  }

  it('runs 20 concurrent duplicates (on two replicas) once; every one answers the same response', async () => {
    const accountId = randomUUID();
    const store = jobs(200);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => services[i % 2].once(request(accountId, 'dup-1'), store.run, store.lookUp)),
    );
    expect(store.runs).toHaveLength(1);
    expect(outcomes.filter((o) => !o.replayed)).toHaveLength(1);
    for (const o of outcomes) expect(o.response).toEqual(response(store.runs[0]));
  });

  it('replays later requests with the key; other accounts and other keys are independent', async () => {
    const accountId = randomUUID();
    const store = jobs();
    const first = await services[0].once(request(accountId, 'k'), store.run, store.lookUp);
    const again = await services[1].once(request(accountId, 'k'), store.run, store.lookUp);
    expect(again).toEqual({ response: first.response, replayed: true });
    await services[0].once(request(randomUUID(), 'k'), store.run, store.lookUp);
    await services[0].once(request(accountId, 'k2'), store.run, store.lookUp);
    expect(store.runs).toHaveLength(3);
  });

  it('refuses the key with another body (422), also while the first request runs', async () => {
    const accountId = randomUUID();
    const store = jobs(300);
    const first = services[0].once(request(accountId, 'k'), store.run, store.lookUp);
    await sleep(50);
    const other = services[1].once(request(accountId, 'k', 'body-b'), store.run, store.lookUp);
    await expect(other).rejects.toMatchObject({ code: 'validation_error', message: expect.stringContaining('different request body') });
    await first;
    await expect(services[1].once(request(accountId, 'k', 'body-b'), store.run, store.lookUp)).rejects.toMatchObject({
      code: 'validation_error',
    });
    expect(store.runs).toHaveLength(1);
  });

  it('forgets the key when the request failed without creating its job, so a retry runs', async () => {
    const accountId = randomUUID();
    const store = jobs();
    const failing = async () => {
      throw new InsufficientCreditsError(4, 0, 'pixel-flux-1');
    };
    await expect(services[0].once(request(accountId, 'k'), failing, store.lookUp)).rejects.toBeInstanceOf(DomainError);
    const retry = await services[0].once(request(accountId, 'k'), store.run, store.lookUp);
    expect(retry.replayed).toBe(false);
    expect(store.runs).toHaveLength(1);
  });

  it('keeps the job of a request that failed after creating it: retries answer that job', async () => {
    const accountId = randomUUID();
    const store = jobs();
    const lostReply = async (jobId: string) => {
      await store.run(jobId);
      throw new DomainError('service_unavailable', 'reply lost');
    };
    await expect(services[0].once(request(accountId, 'k'), lostReply, store.lookUp)).rejects.toMatchObject({ code: 'service_unavailable' });
    const retry = await services[1].once(request(accountId, 'k'), store.run, store.lookUp);
    expect(retry).toEqual({ response: response(store.runs[0]), replayed: true });
    expect(store.runs).toHaveLength(1);
  });

  it('takes over a key whose request stopped (lock lapsed): the job it created is answered, not made again', async () => {
    const accountId = randomUUID();
    const store = jobs();
    // A request that created its job and then never answered (its process died).
    let abandonedJob = '';
    void services[0]
      .once(request(accountId, 'k', 'body-a', 300), async (jobId) => {
        abandonedJob = jobId;
        store.created.set(jobId, response(jobId));
        return new Promise<StoredResponse>(() => undefined);
      }, store.lookUp)
      .catch(() => undefined);
    await sleep(50);
    const started = Date.now();
    const retry = await services[1].once(request(accountId, 'k', 'body-a', 300), store.run, store.lookUp);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150); // it waited for the lock to lapse
    expect(retry).toEqual({ response: response(abandonedJob), replayed: true });
    expect(store.runs).toHaveLength(0);
  });

  it('takes over a key whose request stopped before creating its job: runs it under a new job id', async () => {
    const accountId = randomUUID();
    const store = jobs();
    let abandonedJob = '';
    void services[0]
      .once(request(accountId, 'k', 'body-a', 200), async (jobId) => {
        abandonedJob = jobId;
        return new Promise<StoredResponse>(() => undefined);
      }, store.lookUp)
      .catch(() => undefined);
    await sleep(50);
    const retry = await services[1].once(request(accountId, 'k', 'body-a', 200), store.run, store.lookUp);
    expect(retry.replayed).toBe(false);
    expect(store.runs).toHaveLength(1);
    expect(store.runs[0]).not.toBe(abandonedJob);
  });

  it('expires keys after 24 h: the key then starts a new request; the janitor removes expired records', async () => {
    const accountId = randomUUID();
    const store = jobs();
    await services[0].once(request(accountId, 'old'), store.run, store.lookUp);
    await services[0].once(request(accountId, 'gone'), store.run, store.lookUp);
    await dataSources[0].query(
      `UPDATE idempotency_keys SET expires_at = now() - interval '1 second', created_at = now() - interval '24 hours 1 second'
       WHERE account_id = $1`,
      [accountId],
    );
    const renewed = await services[1].once(request(accountId, 'old', 'another body'), store.run, store.lookUp);
    expect(renewed.replayed).toBe(false);
    expect(store.runs).toHaveLength(3);
    expect(await services[0].deleteExpired()).toBeGreaterThanOrEqual(1);
    const left: Array<{ key: string }> = await dataSources[0].query(`SELECT key FROM idempotency_keys WHERE account_id = $1`, [accountId]);
    expect(left).toEqual([{ key: 'old' }]);
  });

  it.each([
    ['empty', ''],
    ['with a space', ' spaced key'],
    ['256 characters', 'x'.repeat(256)],
    ['not ASCII', 'naïve'],
  ])('rejects an Idempotency-Key header value: %s', (_label, value) => {
    expect(() => parseIdempotencyKey(value)).toThrow(expect.objectContaining({ code: 'validation_error' }));
  });
});
