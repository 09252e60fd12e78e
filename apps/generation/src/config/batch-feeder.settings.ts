/** The batch feeder's fixed timings and sizes (docs/design/batches.md, "How lines run"). */
export const BATCH_FEEDER_TIMINGS = {
  /** A line `admitting` for longer (its feeder died mid-admission) is taken again by any replica. */
  staleAdmittingMs: 10_000,
  /** A batch never sealed after this long (its gateway died while sending it) is deleted. */
  unsealedMaxAgeMs: 10 * 60_000,
  /** How often the feeder looks for such batches. */
  unsealedSweepMs: 60_000,
  /** Stale lines one pass takes again at most. */
  staleBatch: 200,
  /** Lines admitted side by side at most (each one hold and one admission in flight, as concurrent submits). */
  admissionsAtOnce: 32,
  /** A finish of a batch account's job asks for a pass this much later, so that a burst of finishes shares one. */
  finishCoalesceMs: 100,
  /** How often a pass also takes stale lines again and expires the waiting lines of ended windows. */
  housekeepingMs: 1_000,
} as const;
