/** DI token of the outbox relay's settings (OutboxSettings). */
export const OUTBOX_SETTINGS = Symbol('OUTBOX_SETTINGS');

export interface OutboxSettings {
  /**
   * How long a relay holds the events it is publishing (OUTBOX_LEASE_MS). Past it, any relay takes
   * them over: the longest an event of a relay that died waits. Longer than a publish can take, so
   * that a slow publish is not sent twice at once (a second send is harmless, only wasted).
   */
  leaseMs: number;
  /** Events claimed at a time by the poll (OUTBOX_BATCH). */
  batch: number;
  /** Publish marks written in one statement (their commits are grouped). */
  markBatch: number;
  /** How long a published event is kept (what the operator CLI's `jobs inspect` lists) before the relay deletes it (OUTBOX_RETENTION_HOURS). */
  retentionMs: number;
}

export const DEFAULT_OUTBOX_SETTINGS: OutboxSettings = { leaseMs: 10_000, batch: 50, markBatch: 200, retentionMs: 24 * 3_600_000 };
