/** DI token of the ApiKeyCache's settings. */
export const API_KEY_CACHE_SETTINGS = Symbol('API_KEY_CACHE_SETTINGS');

/** How each gateway keeps API keys in memory (see docs/design/limits.md, "API keys"). */
export interface ApiKeyCacheSettings {
  /**
   * How long a key read from the database is trusted without asking again (API_KEY_CACHE_TTL_MS).
   * The safety net for a missed `auth.api-key-changed` broadcast: a revocation made where no
   * broadcast reaches (SQL by hand, the CLI without NATS) takes effect within this time.
   */
  ttlMs: number;
  /** Keys kept at most; the oldest loaded goes first (API_KEY_CACHE_MAX_ENTRIES). */
  maxEntries: number;
  /** How long a lookup id that matched no key is answered 401 without asking again (API_KEY_NEGATIVE_CACHE_TTL_MS). */
  negativeTtlMs: number;
  /** Unknown lookup ids remembered at most, apart from the keys (API_KEY_NEGATIVE_CACHE_MAX_ENTRIES). */
  maxNegativeEntries: number;
  /**
   * Database lookups at once for lookup ids not in memory (API_KEY_LOOKUP_CONCURRENCY): a flood of
   * made-up keys takes at most this many pool connections; the rest wait their turn.
   */
  maxConcurrentLookups: number;
  /** A key's `last_used_at` is written at most this often by one gateway (API_KEY_LAST_USED_INTERVAL_MS). */
  lastUsedIntervalMs: number;
  /** How long a change waits for its broadcast to leave before answering anyway (API_KEY_BROADCAST_TIMEOUT_MS). */
  broadcastTimeoutMs: number;
}

export const DEFAULT_API_KEY_CACHE_SETTINGS: Readonly<ApiKeyCacheSettings> = Object.freeze({
  ttlMs: 10_000,
  maxEntries: 100_000,
  negativeTtlMs: 10_000,
  maxNegativeEntries: 10_000,
  maxConcurrentLookups: 4,
  lastUsedIntervalMs: 60_000,
  broadcastTimeoutMs: 2_000,
});
