import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { ApiKeyChangedBroadcast, Broadcasts, DatabaseChannels } from '@gen/contracts';
import { PgNotifications } from '@gen/persistence';
import { Broadcaster } from '@gen/transport';
import { API_KEY_CACHE_SETTINGS, ApiKeyCacheSettings } from '../settings/api-key-cache.settings';
import { AuthRepository, KeyForAuth } from './auth.repository';

/** A key as this gateway knows it: what authentication and submit need, nothing secret in clear. */
export type CachedApiKey = Omit<KeyForAuth, 'lastUsedMsAgo'>;

interface Entry {
  key: CachedApiKey;
  expiresAt: number;
}

/** A database read in progress; `stale` when a change arrived meanwhile (its answer is then not kept). */
interface Flight {
  promise: Promise<CachedApiKey | null>;
  stale: boolean;
}

/** At most `limit` callers inside at once; the others wait in order. */
class Gate {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

/** Deletes the oldest entries of a Map (insertion order) until it holds at most `max`. */
function trim<K, V>(map: Map<K, V>, max: number, onEvict?: (key: K, value: V) => void): void {
  while (map.size > max) {
    const [key, value] = map.entries().next().value as [K, V];
    map.delete(key);
    onEvict?.(key, value);
  }
}

/**
 * Every gateway's copy of the API keys in use, so that a request costs no database round trip:
 * read once from PostgreSQL, trusted for `ttlMs`, and dropped at once on every replica when a key is
 * revoked or its webhook changes (the `auth.api-key-changed` broadcast, published by whoever made
 * the change, after its commit). The TTL bounds what a lost broadcast can cost.
 *
 * Lookup ids that match no key are remembered too (a bounded map of their own, so they can never
 * push real keys out), and database lookups for ids not in memory go through a small gate, so a
 * flood of made-up keys grows neither memory nor the database's load without bound.
 */
@Injectable()
export class ApiKeyCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyCache.name);
  private readonly entries = new Map<string, Entry>();
  /** Key id to lookup id, for the entries above. */
  private readonly lookupIdOf = new Map<string, string>();
  /** Lookup ids that matched no key, until when. */
  private readonly unknown = new Map<string, number>();
  /** Reads in progress, by `l:<lookup id>` or `i:<key id>`: concurrent misses of one key make one query. */
  private readonly flights = new Map<string, Flight>();
  /** When this gateway last wrote each key's `last_used_at` (or found it recent), local clock. */
  private readonly touchedAt = new Map<string, number>();
  private readonly gate: Gate;
  private readonly unsubscribes: Array<() => void> = [];

  constructor(
    private readonly repository: AuthRepository,
    private readonly broadcaster: Broadcaster,
    @Inject(API_KEY_CACHE_SETTINGS) private readonly settings: ApiKeyCacheSettings,
    @Optional() @Inject(PgNotifications) private readonly notifications: PgNotifications | null = null,
  ) {
    this.gate = new Gate(settings.maxConcurrentLookups);
  }

  onModuleInit(): void {
    this.unsubscribes.push(this.broadcaster.subscribe(Broadcasts.apiKeyChanged, (payload) => this.changed(payload)));
    // The database announces every key change at its commit, whoever made it (the CLI against a
    // running standalone, a deployment without NATS, SQL by hand); after its connection was lost,
    // whatever it announced meanwhile is unknown: every key is read again.
    if (this.notifications) {
      this.unsubscribes.push(this.notifications.listen(DatabaseChannels.apiKeyChanged, (payload) => this.changed(parseNotice(payload))));
      this.unsubscribes.push(this.notifications.onResync(() => this.changed(null)));
    }
  }

  onModuleDestroy(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
  }

  /** The key with this lookup id, or null when there is none (revoked keys are returned, marked). */
  byLookupId(lookupId: string): Promise<CachedApiKey | null> {
    const now = Date.now();
    const entry = this.entries.get(lookupId);
    if (entry && entry.expiresAt > now) return Promise.resolve(entry.key);
    if (!entry) {
      const until = this.unknown.get(lookupId);
      if (until !== undefined && until > now) return Promise.resolve(null);
    }
    // A key this gateway knew is read again without the gate: only unknown ids can be made up.
    return this.load(`l:${lookupId}`, () => this.repository.findKeyForAuthByLookupId(lookupId), entry === undefined, lookupId);
  }

  /** The key with this id (an authenticated caller's own key), or null. */
  byId(keyId: string): Promise<CachedApiKey | null> {
    const lookupId = this.lookupIdOf.get(keyId);
    const entry = lookupId === undefined ? undefined : this.entries.get(lookupId);
    if (entry && entry.expiresAt > Date.now()) return Promise.resolve(entry.key);
    return this.load(`i:${keyId}`, () => this.repository.findKeyForAuthById(keyId), false, null);
  }

  /**
   * Records that a key was used: writes its `last_used_at` when this gateway has not done so (nor
   * seen it done) in the last `lastUsedIntervalMs`. Never awaited by the request.
   */
  recordUse(keyId: string): void {
    const now = Date.now();
    const last = this.touchedAt.get(keyId);
    if (last !== undefined && now - last < this.settings.lastUsedIntervalMs) return;
    this.touchedAt.delete(keyId);
    this.touchedAt.set(keyId, now);
    trim(this.touchedAt, this.settings.maxEntries);
    // A little under the interval, so that the database's clock and ours never skip a minute.
    this.repository
      .touchKey(keyId, Math.floor(this.settings.lastUsedIntervalMs * 0.9))
      .catch((error: unknown) => this.logger.warn({ err: error }, 'last_used_at not updated'));
  }

  /** Drops what this gateway knows about a key (a change it made itself, or one broadcast to it). */
  forget(change: ApiKeyChangedBroadcast): void {
    const entry = this.entries.get(change.lookupId);
    if (entry) this.drop(change.lookupId, entry);
    const byId = this.lookupIdOf.get(change.apiKeyId);
    if (byId !== undefined) {
      const other = this.entries.get(byId);
      if (other) this.drop(byId, other);
    }
    this.unknown.delete(change.lookupId);
    this.ground(`l:${change.lookupId}`);
    this.ground(`i:${change.apiKeyId}`);
  }

  /**
   * Tells every gateway (this one included) to drop the key, and waits until the message has left,
   * at most `broadcastTimeoutMs`: the caller answers only then, so the very next request on any
   * replica sees the change. A broadcast that cannot be sent is logged; the TTL then covers it.
   */
  async announce(change: ApiKeyChangedBroadcast): Promise<void> {
    this.forget(change);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.settings.broadcastTimeoutMs);
    });
    try {
      const outcome = await Promise.race([this.broadcaster.publishAndFlush(Broadcasts.apiKeyChanged, change), timeout]);
      if (outcome === 'timeout') {
        this.logger.warn({ apiKeyId: change.apiKeyId, ttlMs: this.settings.ttlMs }, 'API key change not confirmed sent; other gateways see it within the cache TTL');
      }
    } catch (error) {
      this.logger.warn({ err: error, apiKeyId: change.apiKeyId, ttlMs: this.settings.ttlMs }, 'API key change not broadcast; other gateways see it within the cache TTL');
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sizes, for tests and metrics. */
  size(): { keys: number; unknown: number } {
    return { keys: this.entries.size, unknown: this.unknown.size };
  }

  private changed(payload: unknown): void {
    const change = payload as Partial<ApiKeyChangedBroadcast> | null;
    if (typeof change?.lookupId === 'string' && typeof change.apiKeyId === 'string') {
      this.forget({ lookupId: change.lookupId, apiKeyId: change.apiKeyId });
      return;
    }
    // A message we cannot read might have named any key (as might notices missed while not listening): forget them all.
    if (payload !== null) this.logger.warn('Unreadable API key change broadcast: dropping every cached key');
    this.entries.clear();
    this.lookupIdOf.clear();
    this.unknown.clear();
    for (const flightKey of [...this.flights.keys()]) this.ground(flightKey);
  }

  private load(flightKey: string, read: () => Promise<KeyForAuth | null>, gated: boolean, lookupId: string | null): Promise<CachedApiKey | null> {
    const running = this.flights.get(flightKey);
    if (running) return running.promise;
    // Trusted from the moment the read started: a change committed after that arrives as a broadcast.
    const startedAt = Date.now();
    const flight: Flight = { stale: false, promise: Promise.resolve(null) };
    flight.promise = (async () => {
      try {
        const row = gated ? await this.gate.run(read) : await read();
        const key = row ? toCached(row) : null;
        if (!flight.stale) this.store(key, row?.lastUsedMsAgo ?? null, lookupId, startedAt);
        return key;
      } finally {
        if (this.flights.get(flightKey) === flight) this.flights.delete(flightKey);
      }
    })();
    this.flights.set(flightKey, flight);
    return flight.promise;
  }

  private store(key: CachedApiKey | null, lastUsedMsAgo: number | null, lookupId: string | null, startedAt: number): void {
    if (!key) {
      if (lookupId === null) return;
      this.unknown.delete(lookupId);
      this.unknown.set(lookupId, startedAt + this.settings.negativeTtlMs);
      trim(this.unknown, this.settings.maxNegativeEntries);
      return;
    }
    this.unknown.delete(key.lookupId);
    this.entries.delete(key.lookupId);
    this.entries.set(key.lookupId, { key, expiresAt: startedAt + this.settings.ttlMs });
    this.lookupIdOf.set(key.id, key.lookupId);
    trim(this.entries, this.settings.maxEntries, (_, evicted) => this.lookupIdOf.delete(evicted.key.id));
    // Used recently by any replica: this one need not write it again before the interval is over.
    if (lastUsedMsAgo !== null && !this.touchedAt.has(key.id)) {
      this.touchedAt.set(key.id, startedAt - lastUsedMsAgo);
      trim(this.touchedAt, this.settings.maxEntries);
    }
  }

  private drop(lookupId: string, entry: Entry): void {
    this.entries.delete(lookupId);
    this.lookupIdOf.delete(entry.key.id);
  }

  /** A read in progress keeps its answer for its own callers but stores nothing, and later calls read again. */
  private ground(flightKey: string): void {
    const flight = this.flights.get(flightKey);
    if (!flight) return;
    flight.stale = true;
    this.flights.delete(flightKey);
  }
}

function toCached(row: KeyForAuth): CachedApiKey {
  const { lastUsedMsAgo: _lastUsedMsAgo, ...key } = row;
  return key;
}

/** A NOTIFY payload as the broadcast it stands for (null when it cannot be read: everything is dropped). */
function parseNotice(payload: string): unknown {
  try {
    return JSON.parse(payload) as unknown;
  } catch {
    return undefined;
  }
}
