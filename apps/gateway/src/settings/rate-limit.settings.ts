/** DI token of the rate limiter's settings. */
export const RATE_LIMIT_SETTINGS = Symbol('RATE_LIMIT_SETTINGS');

/** How a gateway takes slices of an account's window and spends them (see docs/guide/limits.md). */
export interface RateLimitSettings {
  /**
   * A slice covers the requests this gateway expects for the account in about this long, judged by
   * its recent pace (RATE_LIMIT_SLICE_HORIZON_MS). Longer: fewer writes, more hits held by one replica.
   */
  sliceHorizonMs: number;
  /** Hits in one slice at most (RATE_LIMIT_MAX_SLICE). */
  maxSliceHits: number;
  /**
   * A slice takes beyond the requests already waiting at most 1/n of what is left of the window
   * (RATE_LIMIT_SLICE_SHARE), so replicas share the end of a window; below n hits left, each lease
   * is exactly the requests waiting.
   */
  sliceShareDivisor: number;
  /** A slice with hits left that has not been used for this long is given back (RATE_LIMIT_IDLE_RETURN_MS). */
  idleReturnMs: number;
  /** After the window is used up, this gateway refuses locally and asks again at most this often (RATE_LIMIT_EXHAUSTED_RECHECK_MS). */
  exhaustedRecheckMs: number;
}

export const DEFAULT_RATE_LIMIT_SETTINGS: Readonly<RateLimitSettings> = Object.freeze({
  sliceHorizonMs: 1_000,
  maxSliceHits: 10_000,
  sliceShareDivisor: 8,
  idleReturnMs: 1_000,
  exhaustedRecheckMs: 1_000,
});
