import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Broadcasts } from '@gen/contracts';
import { PgNotifications } from '@gen/persistence';
import { createTestDatabase, eventually, TestDatabase } from '@gen/testing';
import { Broadcaster, InProcessBroadcaster, NatsBroadcaster, NatsRpcClient, NatsTransportConfig } from '@gen/transport';
import { openAuthDatabase } from '../gateway.database';
import { API_KEY_PREFIX } from './api-key-format';
import { ApiKeyCache } from './api-key-cache';
import { ApiKeyCacheSettings, DEFAULT_API_KEY_CACHE_SETTINGS } from '../settings/api-key-cache.settings';
import { ApiKeysService } from './api-keys.service';
import { AuthRepository, KeyForAuth } from './auth.repository';
import { WebhookSecretCipher } from './webhook-secret-cipher';

/** The real repository, counting what the cache asks of the database (and able to hold a read or a touch). */
class CountingRepository extends AuthRepository {
  lookups = 0;
  readsDone = 0;
  inFlight = 0;
  maxInFlight = 0;
  touches = 0;
  /** When set, a key read waits for it after reading (the row is read, the answer not yet back). */
  holdReads?: Promise<void>;
  /** When set, touches wait for it (a slow database). */
  holdTouches?: Promise<void>;

  override findKeyForAuthByLookupId(lookupId: string): Promise<KeyForAuth | null> {
    return this.counted(() => super.findKeyForAuthByLookupId(lookupId));
  }
  override findKeyForAuthById(keyId: string): Promise<KeyForAuth | null> {
    return this.counted(() => super.findKeyForAuthById(keyId));
  }
  override async touchKey(keyId: string, minAgeMs: number): Promise<void> {
    this.touches++;
    await this.holdTouches;
    return super.touchKey(keyId, minAgeMs);
  }
  private async counted(read: () => Promise<KeyForAuth | null>): Promise<KeyForAuth | null> {
    this.lookups++;
    this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
    try {
      const row = await read();
      this.readsDone++;
      await this.holdReads;
      return row;
    } finally {
      this.inFlight--;
    }
  }
}

const latch = () => {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
};

/**
 * Integration: real PostgreSQL (and real NATS for the cross-replica broadcast). Each "replica" is its
 * own cache and service on the shared database; a test's broadcaster stands for the deployment's.
 */
describe('ApiKeyCache (PostgreSQL, NATS)', () => {
  let database: TestDatabase;
  let db: DataSource;
  const cipher = new WebhookSecretCipher({ current: randomBytes(32), previous: [] });
  const caches: ApiKeyCache[] = [];
  const natsClients: NatsRpcClient[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('apikeys');
    db = await openAuthDatabase(database.url, 10);
  });
  afterAll(async () => {
    for (const cache of caches) cache.onModuleDestroy();
    await Promise.all(natsClients.map((c) => c.onApplicationShutdown()));
    await Promise.all(listeners.map((l) => l.onApplicationShutdown()));
    await db.destroy();
    await database.drop();
  });

  const listeners: PgNotifications[] = [];
  const replica = (broadcaster: Broadcaster = new InProcessBroadcaster(), settings: Partial<ApiKeyCacheSettings> = {}, notifications?: PgNotifications) => {
    const repository = new CountingRepository(db);
    const cache = new ApiKeyCache(repository, broadcaster, { ...DEFAULT_API_KEY_CACHE_SETTINGS, ...settings }, notifications);
    cache.onModuleInit();
    caches.push(cache);
    return { repository, cache, keys: new ApiKeysService(repository, cipher, cache) };
  };
  const newKey = async (keys: ApiKeysService) => {
    const accountId = randomUUID();
    await new AuthRepository(db).insertAccount({ id: accountId, name: 'cache test' });
    return { accountId, ...(await keys.create(accountId, 'k')) };
  };
  const unknownKey = () => API_KEY_PREFIX + randomBytes(24).toString('base64').replace(/[^A-Za-z0-9]/g, 'x').slice(0, 32);
  const refused = (promise: Promise<unknown>) => expect(promise).rejects.toMatchObject({ code: 'unauthorized' });
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const lastUsed = async (keyId: string) =>
    ((await db.query(`SELECT last_used_at FROM api_keys WHERE id = $1`, [keyId])) as Array<{ last_used_at: Date | null }>)[0].last_used_at;

  it('verifies from memory: one read per key until the TTL, which bounds a change made behind its back', async () => {
    const a = replica(undefined, { ttlMs: 500 });
    const key = await newKey(a.keys);
    for (let i = 0; i < 20; i++) expect(await a.keys.authenticate(key.key)).toMatchObject({ accountId: key.accountId, apiKeyId: key.id });
    expect(a.repository.lookups).toBe(1);
    // Concurrent first uses of a key make one read.
    const b = replica();
    await Promise.all(Array.from({ length: 20 }, () => b.keys.authenticate(key.key)));
    expect(b.repository.lookups).toBe(1);
    // Revoked by hand in SQL: no broadcast, so the copy serves until the TTL ends, then 401.
    await db.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [key.id]);
    await a.keys.authenticate(key.key);
    await sleep(600);
    await refused(a.keys.authenticate(key.key));
    await refused(a.keys.authenticate(key.key));
    expect(a.repository.lookups).toBe(2);
    // A wrong secret with a real lookup id is refused too (the hash decides, in constant time).
    const forged = key.key.slice(0, -4) + (key.key.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    await refused(b.keys.authenticate(forged));
  });

  it('without any broadcast, the database announces a change at its commit: the very next request sees it (and a use announces nothing)', async () => {
    const listening = async () => {
      const notifications = PgNotifications.forDataSource(db);
      listeners.push(notifications);
      await notifications.start();
      return notifications;
    };
    // Two replicas that share no broadcaster (each its own), with a TTL that never ends: only the database tells them.
    const a = replica(new InProcessBroadcaster(), { ttlMs: 600_000, lastUsedIntervalMs: 1_000 }, await listening());
    const b = replica(new InProcessBroadcaster(), { ttlMs: 600_000 }, await listening());
    const key = await newKey(a.keys);
    await a.keys.authenticate(key.key);
    await b.keys.authenticate(key.key);
    // A use writes last_used_at: no notice, so the copies stay (no read per request).
    a.cache.recordUse(key.id);
    await eventually(() => lastUsed(key.id), (at) => at !== null);
    await sleep(100);
    await a.keys.authenticate(key.key);
    await b.keys.authenticate(key.key);
    expect([a.repository.lookups, b.repository.lookups]).toEqual([1, 1]);
    // Revoked as the CLI does it against a running standalone (SQL in its own process, no broker).
    await db.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [key.id]);
    // A NOTIFY reaches the listeners right after the commit: a few milliseconds, less than any CLI takes to exit.
    await eventually(async () => a.cache.size().keys + b.cache.size().keys, (n) => n === 0, 2_000, 5);
    await refused(a.keys.authenticate(key.key));
    await refused(b.keys.authenticate(key.key));
  });

  it('after its listening connection is lost, a gateway trusts no copy: notices sent meanwhile are unknown', async () => {
    const notifications = PgNotifications.forDataSource(db);
    listeners.push(notifications);
    await notifications.start();
    const a = replica(new InProcessBroadcaster(), { ttlMs: 600_000 }, notifications);
    const key = await newKey(a.keys);
    await a.keys.authenticate(key.key);
    expect(a.cache.size().keys).toBe(1);
    await db.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'gen-listen' AND datname = current_database()`);
    await eventually(async () => a.cache.size().keys, (n) => n === 0, 5_000, 10);
    await eventually(async () => notifications.listening, (up) => up, 10_000, 50);
    // Listening again: a change made now is seen at once.
    await a.keys.authenticate(key.key);
    await db.query(`UPDATE api_keys SET webhook_url = 'https://example.com/hook' WHERE id = $1`, [key.id]);
    await eventually(async () => a.cache.size().keys, (n) => n === 0, 2_000, 5);
  });

  it('a revocation on one replica answers 401 on the very next request of every replica (in-process broadcaster)', async () => {
    const broadcaster = new InProcessBroadcaster();
    const [a, b] = [replica(broadcaster, { ttlMs: 600_000 }), replica(broadcaster, { ttlMs: 600_000 })];
    const key = await newKey(a.keys);
    await a.keys.authenticate(key.key);
    await b.keys.authenticate(key.key);
    await a.keys.revoke(key.accountId, key.id);
    await refused(b.keys.authenticate(key.key));
    await refused(a.keys.authenticate(key.key));
  });

  it('over NATS: a revocation and webhook changes reach the other replica before its next request', async () => {
    const config: NatsTransportConfig = {
      url: process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222',
      service: 'gateway',
      subjectPrefix: `t${randomBytes(4).toString('hex')}.`,
      streamName: 'UNUSED',
      requestTimeoutMs: 5_000,
    };
    const natsReplica = async () => {
      const rpc = new NatsRpcClient(config);
      natsClients.push(rpc);
      const node = replica(new NatsBroadcaster(config, rpc), { ttlMs: 600_000 });
      // The subscription is made once the connection is up; a flush then proves the server has it.
      const nc = await rpc.connection();
      await new Promise((r) => setImmediate(r));
      await nc.flush();
      return { ...node, nc };
    };
    const a = await natsReplica();
    const b = await natsReplica();
    const key = await newKey(a.keys);
    await b.keys.authenticate(key.key);
    expect(await b.keys.webhookDestination(key.id)).toEqual({ defaultWebhookUrl: null, hasSecret: false });

    // Whatever B reads from the network after the change left A (here: its own round trip to NATS,
    // as a request would come after the revoking response) comes after the broadcast.
    await a.keys.setWebhookUrl(key.accountId, key.id, 'https://hooks.example.com/k', 'whsec_first');
    await b.nc.flush();
    expect(await b.keys.webhookDestination(key.id)).toEqual({ defaultWebhookUrl: 'https://hooks.example.com/k', hasSecret: true });

    await a.keys.revoke(key.accountId, key.id);
    await b.nc.flush();
    await refused(b.keys.authenticate(key.key));
    expect(b.repository.lookups).toBe(3);
  });

  it('a read in progress when the key changes is not kept: the next request reads again', async () => {
    const broadcaster = new InProcessBroadcaster();
    const a = replica(broadcaster, { ttlMs: 600_000 });
    const b = replica(broadcaster, { ttlMs: 600_000 });
    const key = await newKey(a.keys);
    const hold = latch();
    b.repository.holdReads = hold.opened;
    const before = b.keys.authenticate(key.key); // reads the row while the key is live, then waits
    while (b.repository.readsDone === 0) await sleep(5);
    await a.keys.revoke(key.accountId, key.id);
    b.repository.holdReads = undefined;
    hold.open();
    // It began before the revocation: either answer is right for it. The next one is not.
    await before.catch(() => undefined);
    await refused(b.keys.authenticate(key.key));
    expect(b.repository.lookups).toBe(2);
  });

  it('remembers unknown lookup ids in a bounded map, reads them through a small gate, and never drops real keys for them', async () => {
    const a = replica(undefined, { maxNegativeEntries: 50, maxConcurrentLookups: 2, maxEntries: 10 });
    const key = await newKey(a.keys);
    await a.keys.authenticate(key.key);
    const flood = Array.from({ length: 200 }, unknownKey);
    const outcomes = await Promise.allSettled(flood.map((k) => a.keys.authenticate(k)));
    expect(outcomes.every((o) => o.status === 'rejected' && (o.reason as { code?: string }).code === 'unauthorized')).toBe(true);
    expect(a.repository.lookups).toBe(201);
    expect(a.repository.maxInFlight).toBeLessThanOrEqual(2);
    expect(a.cache.size()).toEqual({ keys: 1, unknown: 50 });
    // The latest unknown ids are answered from memory; the real key still is too.
    for (let i = 0; i < 5; i++) await refused(a.keys.authenticate(flood[199]));
    await a.keys.authenticate(key.key);
    expect(a.repository.lookups).toBe(201);
    // An id pushed out of the bounded map is simply read again.
    await refused(a.keys.authenticate(flood[0]));
    expect(a.repository.lookups).toBe(202);
  });

  it('keeps only the newest keys when more are in use than it holds', async () => {
    const a = replica(undefined, { maxEntries: 3 });
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push(await newKey(a.keys));
    for (const k of keys) await a.keys.authenticate(k.key);
    expect(a.cache.size().keys).toBe(3);
    await a.keys.authenticate(keys[4].key);
    expect(a.repository.lookups).toBe(5);
    await a.keys.authenticate(keys[0].key);
    expect(a.repository.lookups).toBe(6);
  });

  it('writes last_used_at at most once per interval per replica, never in the way of the request', async () => {
    const a = replica(undefined, { lastUsedIntervalMs: 1_000 });
    const key = await newKey(a.keys);
    // A database slow to take the write: requests do not wait for it.
    const slow = latch();
    a.repository.holdTouches = slow.opened;
    for (let i = 0; i < 30; i++) await a.keys.authenticate(key.key);
    expect(a.repository.touches).toBe(1);
    expect(await lastUsed(key.id)).toBeNull();
    slow.open();
    a.repository.holdTouches = undefined;
    for (let i = 0; i < 50 && (await lastUsed(key.id)) === null; i++) await sleep(20);
    const first = await lastUsed(key.id);
    expect(first).toBeInstanceOf(Date);

    // Another replica reads the recent time with the key and does not write it again.
    const b = replica(undefined, { lastUsedIntervalMs: 60_000 });
    for (let i = 0; i < 10; i++) await b.keys.authenticate(key.key);
    expect(b.repository.touches).toBe(0);

    // After the interval, the next use writes again.
    await sleep(1_050);
    await a.keys.authenticate(key.key);
    await a.keys.authenticate(key.key);
    expect(a.repository.touches).toBe(2);
    for (let i = 0; i < 50 && (await lastUsed(key.id))?.getTime() === first?.getTime(); i++) await sleep(20);
    expect((await lastUsed(key.id))?.getTime()).toBeGreaterThan(first?.getTime() ?? 0);
  });

  it("answers submit's webhook destination from memory, and reads it once for a key not seen yet", async () => {
    const a = replica();
    const key = await newKey(a.keys);
    await a.keys.setWebhookUrl(key.accountId, key.id, 'https://hooks.example.com/d', 'whsec_d');
    await a.keys.authenticate(key.key);
    expect(a.repository.lookups).toBe(1);
    expect(await a.keys.webhookDestination(key.id)).toEqual({ defaultWebhookUrl: 'https://hooks.example.com/d', hasSecret: true });
    expect(a.repository.lookups).toBe(1);
    const b = replica();
    for (let i = 0; i < 3; i++) expect((await b.keys.webhookDestination(key.id)).hasSecret).toBe(true);
    expect(b.repository.lookups).toBe(1);
    await b.keys.authenticate(key.key);
    expect(b.repository.lookups).toBe(1);
  });

  it('drops every key on a broadcast it cannot read', async () => {
    const broadcaster = new InProcessBroadcaster();
    const a = replica(broadcaster);
    const key = await newKey(a.keys);
    await a.keys.authenticate(key.key);
    await broadcaster.publishAndFlush(Broadcasts.apiKeyChanged, { what: 'is this' });
    expect(a.cache.size().keys).toBe(0);
    await a.keys.authenticate(key.key);
    expect(a.repository.lookups).toBe(2);
  });
});
