/** What bounds the lines a feeder pass admits (GenerationSettings: BATCH_MAX_IN_FLIGHT, BATCH_KEEP_FREE_PERCENT). */
export interface BatchSlotLimits {
  /** Batch jobs queued or processing, deployment-wide, at most. */
  maxInFlight: number;
  /** Share of an account's parallel slots its batches leave free for its interactive requests. */
  keepFreePercent: number;
  /** Lines one pass takes at most (the rest wait for the next pass, a moment later). */
  maxLines: number;
}

/**
 * The account's parallel slots its batches may fill: the rest stays free for interactive requests,
 * so a submit starts at once instead of waiting for a batch line's run (issue 38: interactive submits
 * keep their p99 while a batch runs). At least one slot is kept once the account has two; an account
 * with one slot lends it to its batch when it is free (a submit then waits for one line at most).
 */
export function batchSlots(parallelLimit: number, keepFreePercent: number): number {
  if (parallelLimit <= 1 || keepFreePercent <= 0) return parallelLimit;
  const kept = Math.max(1, Math.ceil((parallelLimit * keepFreePercent) / 100));
  return Math.max(1, parallelLimit - kept);
}
