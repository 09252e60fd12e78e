/** DI token of the finisher's settings (JobFinisherSettings). */
export const JOB_FINISHER_SETTINGS = Symbol('JOB_FINISHER_SETTINGS');

export interface JobFinisherSettings {
  /** Finishes written in one transaction at most (JOB_FINISH_BATCH). */
  maxBatch: number;
  /** Tries of one finish when the database fails it for a reason of its own (down, restarting), not for its values. */
  attempts: number;
  /** Pause before the second try; doubled before each further one. */
  retryDelayMs: number;
}

export const DEFAULT_JOB_FINISHER_SETTINGS: JobFinisherSettings = { maxBatch: 100, attempts: 4, retryDelayMs: 250 };
