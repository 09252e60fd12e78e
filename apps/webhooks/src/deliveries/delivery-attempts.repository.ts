import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { readSqlFile, sqlRows } from '@gen/persistence';
import type { EventName } from '@gen/contracts';
import { DataSource } from 'typeorm';
import { WEBHOOKS_DB } from '../config/webhooks.tokens';
import { AttemptResult, ClaimedAttempt, ExhaustedDelivery, INTERRUPTED_MESSAGE, NewDelivery } from './delivery-attempt';

export type { AttemptResult, ClaimedAttempt, ExhaustedDelivery, NewDelivery } from './delivery-attempt';
export { INTERRUPTED_MESSAGE } from './delivery-attempt';

const sql = (file: string) => readSqlFile(join(__dirname, file));
const INSERT_DELIVERIES = sql('insert-deliveries.sql');
const CLAIM_DELIVERIES = sql('claim-deliveries.sql');
const RECORD_ATTEMPTS = sql('record-attempts.sql');
const DUE_DELIVERIES = sql('due-deliveries.sql');
const FAIL_EXHAUSTED = sql('fail-exhausted.sql');

interface ClaimRow {
  id: string;
  job_id: string | null;
  test: boolean;
  account_id: string;
  api_key_id: string;
  event: EventName;
  url: string;
  body: Buffer;
  attempts_made: number;
  next_attempt_at: Date;
}

/**
 * The dispatcher's statements on deliveries and their attempts. Times are the dispatcher's clock
 * (epoch ms, passed in), so that timers and the due/lease comparisons in SQL agree to the millisecond.
 *
 * An attempt starts in one of two ways, each counted and leased before anything is sent: `insert`
 * (attempt 1, claimed with the delivery itself) and `claim` (any due attempt). `recordAttempts`
 * ends it, `releaseClaim` gives back one that could not start, `failExhausted` ends a delivery
 * whose last attempt was interrupted.
 */
@Injectable()
export class DeliveryAttemptsRepository {
  constructor(@Inject(WEBHOOKS_DB) private readonly db: DataSource) {}

  /**
   * Stores new deliveries, each due at its `firstAttemptAt`, in one statement (one commit, flushed:
   * the event that caused a delivery is acknowledged only after this). With `claim`, the first
   * `claim.count` of them are stored already claimed for attempt 1 (counted, recorded as in
   * flight, leased to the caller), so attempt 1 needs no claim of its own; the others are left
   * for `claim`. Rows that conflict (an event seen again, a second pending redelivery of a job, a
   * second pending test of a key) are skipped: `inserted` lacks them.
   *
   * One of the two ways a delivery starts. Why claimed here: in the common case (a free attempt
   * slot) a new delivery costs one commit before its first request, not two. Why unclaimed too: a
   * process with no free slot must still store the delivery (so that its event can be
   * acknowledged), and the CLI (which sends nothing itself) leaves its rows to the service's poll.
   */
  async insert(
    deliveries: readonly NewDelivery[],
    claim: { count: number; at: number; leaseMs: number } = { count: 0, at: 0, leaseMs: 0 },
  ): Promise<{ inserted: Set<string>; claimed: ClaimedAttempt[] }> {
    if (deliveries.length === 0) return { inserted: new Set(), claimed: [] };
    const token = randomUUID();
    const column = <K extends keyof NewDelivery>(key: K) => deliveries.map((d) => d[key]);
    const bodies = bodiesParameter(deliveries);
    const rows = await sqlRows<{ id: string; attempts_made: number }>(
      this.db,
      INSERT_DELIVERIES,
      [
        column('id'),
        column('eventId'),
        column('redeliveryOf'),
        column('jobId'),
        column('accountId'),
        column('apiKeyId'),
        column('event'),
        column('url'),
        column('urlSource'),
        bodies.blob,
        deliveries.map((d) => new Date(d.firstAttemptAt)),
        deliveries.map((_, i) => i < claim.count),
        token,
        new Date(claim.at + claim.leaseMs),
        new Date(claim.at),
        deliveries.map((d) => d.test ?? false),
        bodies.offsets,
        bodies.lengths,
      ],
    );
    const attemptsMade = new Map(rows.map((r) => [r.id, Number(r.attempts_made)]));
    const inserted = new Set(attemptsMade.keys());
    const claimed = deliveries
      .filter((d) => attemptsMade.get(d.id) === 1)
      .map((d) => firstAttempt(d, token));
    return { inserted, claimed };
  }

  /**
   * Claims the given deliveries for their next attempt if they are due (`at` with a few ms of
   * tolerance for timer rounding), not leased by anyone and have an attempt left. The attempt is
   * counted and recorded as in flight in the same statement, before anything is sent: a crash
   * after this point can never lead to a fourth send. An earlier attempt left in flight by a process
   * that died (its lease expired) is marked interrupted.
   *
   * The other way a delivery's attempt starts, and the only one that is safe for any delivery
   * whatever happened before: attempts 2 and 3, attempt 1 of a delivery stored unclaimed, and
   * whatever a restarted process or another replica finds due. Two replicas (or a timer and the
   * poll) racing for one delivery make one attempt (`FOR UPDATE SKIP LOCKED`).
   */
  async claim(ids: string[], at: number, leaseMs: number): Promise<ClaimedAttempt[]> {
    if (ids.length === 0) return [];
    const token = randomUUID();
    const now = new Date(at);
    const rows = await sqlRows<ClaimRow>(
      this.db,
      CLAIM_DELIVERIES,
      [ids, now, token, new Date(at + leaseMs), INTERRUPTED_MESSAGE],
    );
    return rows.map((r) => ({
      deliveryId: r.id,
      jobId: r.job_id,
      accountId: r.account_id,
      apiKeyId: r.api_key_id,
      event: r.event,
      url: r.url,
      body: r.body,
      number: Number(r.attempts_made),
      test: r.test,
      dueAt: new Date(r.next_attempt_at).getTime(),
      leaseToken: token,
    }));
  }

  /** Records one attempt's outcome (see recordAttempts); false if the lease was lost. */
  async recordAttempt(claim: ClaimedAttempt, result: AttemptResult): Promise<boolean> {
    return (await this.recordAttempts([{ claim, result }])).has(claim.deliveryId);
  }

  /**
   * Records attempts' outcomes and schedules each delivery's next attempt (or finishes it), in one
   * statement for the lot. Only the holder of a delivery's lease changes the delivery; returns the
   * ids whose outcome was applied (the others had lost their lease: their process was presumed dead).
   *
   * Committed without waiting for the WAL flush (`synchronous_commit = off`): the claim before the
   * send was flushed, so if the database server itself crashes in the next few hundred ms and loses
   * this outcome, the lease expires and the attempt counts as interrupted (never a fourth attempt).
   * A process crash (the usual case) loses nothing: the commit is in the server.
   */
  async recordAttempts(items: ReadonlyArray<{ claim: ClaimedAttempt; result: AttemptResult }>): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const finished = (r: AttemptResult) => r.succeeded || r.nextAttemptAt === null;
    // One statement, one round trip: `set_config(..., true)` is `SET LOCAL` for the statement's own
    // (implicit) transaction, still in force when it commits.
    const rows = await sqlRows<{ id: string }>(
      this.db,
      RECORD_ATTEMPTS,
      [
        items.map((x) => x.claim.deliveryId),
        items.map((x) => x.claim.leaseToken),
        items.map((x) => x.claim.number),
        items.map((x) => new Date(x.result.startedAt)),
        items.map((x) => x.result.durationMs),
        items.map((x) => x.result.statusCode),
        items.map((x) => x.result.errorClass),
        items.map((x) => x.result.error),
        items.map((x) => (x.result.succeeded ? 'succeeded' : finished(x.result) ? 'failed' : 'pending')),
        items.map((x) => (finished(x.result) ? null : new Date(x.result.nextAttemptAt as number))),
        items.map((x) => (finished(x.result) ? new Date(x.result.startedAt + x.result.durationMs) : null)),
      ],
    );
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Gives an attempt back without counting it (nothing was sent: the key's secret could not be read
   * because a dependency is down), due again at `retryAt`.
   */
  async releaseClaim(claim: ClaimedAttempt, retryAt: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = await sqlRows<{ id: string }>(
        tx,
        `UPDATE deliveries SET attempts_made = attempts_made - 1, next_attempt_at = $3, lease_token = NULL, lease_until = NULL
         WHERE id = $1 AND lease_token = $2 AND status = 'pending' AND attempts_made = $4 RETURNING id`,
        [claim.deliveryId, claim.leaseToken, new Date(retryAt), claim.number],
      );
      if (rows.length === 0) return false;
      await tx.query(`DELETE FROM attempts WHERE delivery_id = $1 AND number = $2`, [claim.deliveryId, claim.number]);
      return true;
    });
  }

  /**
   * Pending deliveries due by `horizon` and free to claim now, soonest first: what the dispatcher
   * sets timers for. Leased ones are someone's in-flight attempt; they show up here once it ends or
   * its lease expires.
   */
  async dueBy(now: number, horizon: number, limit: number): Promise<Array<{ id: string; at: number }>> {
    const rows = await sqlRows<{ id: string; next_attempt_at: Date }>(
      this.db,
      DUE_DELIVERIES,
      [new Date(now), new Date(horizon), limit],
    );
    return rows.map((r) => ({ id: r.id, at: new Date(r.next_attempt_at).getTime() }));
  }

  /**
   * Deliveries whose third attempt was interrupted (lease expired with nothing recorded): no
   * attempt is left, so they are failed here, and the attempt marked interrupted.
   */
  async failExhausted(now: number, limit: number): Promise<ExhaustedDelivery[]> {
    const rows = await sqlRows<{ id: string; job_id: string | null; account_id: string; event: EventName; url: string }>(
      this.db,
      FAIL_EXHAUSTED,
      [new Date(now), limit, INTERRUPTED_MESSAGE],
    );
    return rows.map((r) => ({ id: r.id, jobId: r.job_id, accountId: r.account_id, event: r.event, url: r.url }));
  }
}

/**
 * The deliveries' bodies as one parameter, each at its offset: node-postgres sends a Buffer as it is,
 * but an array of them as text, each body written out in hex and escaped (twice its size, and the
 * largest part of an insert's cost).
 */
function bodiesParameter(deliveries: readonly NewDelivery[]): { blob: Buffer; offsets: number[]; lengths: number[] } {
  const offsets: number[] = [];
  const lengths: number[] = [];
  let offset = 0;
  for (const d of deliveries) {
    offsets.push(offset);
    lengths.push(d.body.length);
    offset += d.body.length;
  }
  return { blob: Buffer.concat(deliveries.map((d) => d.body), offset), offsets, lengths };
}

/** Attempt 1 of a delivery this process just inserted and claimed under `leaseToken`. */
function firstAttempt(d: NewDelivery, leaseToken: string): ClaimedAttempt {
  return {
    deliveryId: d.id,
    jobId: d.jobId,
    accountId: d.accountId,
    apiKeyId: d.apiKeyId,
    event: d.event,
    url: d.url,
    body: d.body,
    number: 1,
    test: d.test ?? false,
    dueAt: d.firstAttemptAt,
    leaseToken,
  };
}
