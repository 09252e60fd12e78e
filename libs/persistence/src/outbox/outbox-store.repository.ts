import type { DataSource, QueryRunner } from 'typeorm';
import { PreparedStatement } from '../statements/prepared';

/** An event as the outbox stores it: the relay publishes `payload` on `pattern` with `id` as the message id. */
export interface OutboxMessage {
  id: string;
  pattern: string;
  payload: unknown;
}

/** The relay that publishes rows written now: leased to it from the start, so it needs no claim. */
export interface OutboxLease {
  owner: string;
  leaseMs: number;
}

// One name per statement for every service: each DataSource has its own pool and search_path, so a
// statement is prepared on that service's connections, against its own `outbox`.
const insertMessages = new PreparedStatement<never>(
  'outbox.insert',
  `INSERT INTO outbox (id, pattern, payload, lease_owner, lease_expires_at)
   SELECT m.id, m.pattern, m.payload::jsonb, $4::text, CASE WHEN $4::text IS NOT NULL THEN now() + ($5::int * interval '1 millisecond') END
   FROM unnest($1::uuid[], $2::text[], $3::text[]) AS m(id, pattern, payload)`,
);

// Rows nobody holds (never leased, or released after a failed publish) or whose lease ended (its
// relay died or stalls), oldest first. SKIP LOCKED: a concurrent claim's rows are its own. The
// statement commits at once, so the locks last only as long as the claim itself.
const claimMessages = new PreparedStatement<OutboxMessage>(
  'outbox.claim',
  `UPDATE outbox SET lease_owner = $1, lease_expires_at = now() + ($3::int * interval '1 millisecond')
   WHERE id IN (
     SELECT id FROM outbox
     WHERE published_at IS NULL AND (lease_expires_at IS NULL OR lease_expires_at < now())
     ORDER BY created_at LIMIT $2
     FOR UPDATE SKIP LOCKED)
   RETURNING id, pattern, payload`,
);

// Asynchronous commit (the one-row subquery sets it for this statement's own transaction): a mark
// lost in a database crash only means the event is published again when its lease ends, and
// JetStream (message id) and every consumer (keyed by the event id) take a second copy as a no-op.
const markMessagesPublished = new PreparedStatement<never>(
  'outbox.mark_published',
  `UPDATE outbox SET published_at = now(), lease_owner = NULL, lease_expires_at = NULL
   FROM (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous_commit
   WHERE id = ANY($1::uuid[]) AND published_at IS NULL`,
);

const releaseMessages = new PreparedStatement<never>(
  'outbox.release',
  `UPDATE outbox SET lease_owner = NULL, lease_expires_at = NULL, publish_attempts = publish_attempts + 1
   WHERE id = ANY($2::uuid[]) AND lease_owner = $1 AND published_at IS NULL`,
);

// Published rows past their retention, oldest first, a batch at a time (the partial index
// outbox_published finds them without reading the table). SKIP LOCKED: relays of several replicas
// pruning at once take different rows instead of waiting for each other's.
const prunePublished = new PreparedStatement<{ id: string }>(
  'outbox.prune_published',
  `DELETE FROM outbox WHERE id IN (
     SELECT id FROM outbox WHERE published_at IS NOT NULL AND published_at < $1 ORDER BY published_at LIMIT $2 FOR UPDATE SKIP LOCKED)
   RETURNING id`,
);

/**
 * A service's outbox (`OutboxEventEntity`, in the schema of the DataSource given): events written in
 * the same transaction as the state they announce, then published by `OutboxRelay` with no
 * transaction open (claim with a lease, publish, mark). At least once: a relay that dies between
 * publish and mark leaves rows that are published again when the lease ends.
 */
export class OutboxStore {
  constructor(protected readonly db: DataSource) {}

  /**
   * Inside the caller's transaction (a repository's, on its query runner): the events of the state it
   * writes. With a lease, the rows start out held by that relay, which publishes them right after the
   * commit; without one (a process with no relay, e.g. the CLI), any relay's poll takes them.
   */
  async append(tx: QueryRunner, messages: readonly OutboxMessage[], lease: OutboxLease | null): Promise<void> {
    if (messages.length === 0) return;
    await insertMessages.rows(tx, [
      messages.map((m) => m.id),
      messages.map((m) => m.pattern),
      messages.map((m) => JSON.stringify(m.payload)),
      lease?.owner ?? null,
      lease?.leaseMs ?? null,
    ]);
  }

  /** Leases up to `batch` unpublished rows that nobody holds to `owner` for `leaseMs`, and commits. */
  claim(owner: string, batch: number, leaseMs: number): Promise<OutboxMessage[]> {
    return claimMessages.rows(this.db, [owner, batch, leaseMs]);
  }

  async markPublished(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await markMessagesPublished.rows(this.db, [ids]);
  }

  /** Deletes up to `limit` events published before `before`; how many it deleted. */
  async prunePublished(before: Date, limit: number): Promise<number> {
    return (await prunePublished.rows(this.db, [before, limit])).length;
  }

  /** A publish failed: the rows are free for the next claim at once, and the attempt is counted. */
  async releaseLease(owner: string, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await releaseMessages.rows(this.db, [owner, ids]);
  }
}
