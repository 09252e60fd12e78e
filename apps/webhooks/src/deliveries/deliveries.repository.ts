import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { retryTransient, sqlRows } from '@gen/persistence';
import type { EventName, WebhookAttemptErrorClass } from '@gen/contracts';
import { DataSource } from 'typeorm';
import { WEBHOOKS_DB } from '../webhooks.tokens';
import { AttemptEntity } from './attempt.entity';
import { DeliveryEntity, DestinationSource } from './delivery.entity';

export interface NewDelivery {
  id: string;
  /** Null for a redelivery (then `redeliveryOf` is set). */
  eventId: string | null;
  redeliveryOf: string | null;
  /** Null for a test event. */
  jobId: string | null;
  accountId: string;
  apiKeyId: string;
  event: EventName;
  url: string;
  urlSource: DestinationSource;
  body: Buffer;
  /** Epoch ms of attempt 1 (now). */
  firstAttemptAt: number;
  /** A test event (POST /api/v1/webhooks/test): no generation, sent with `X-Service-Test: true`. Default false. */
  test?: boolean;
}

/** A delivery claimed for one attempt: what the attempt needs, and the token that proves the claim. */
export interface ClaimedAttempt {
  deliveryId: string;
  /** Null for a test event. */
  jobId: string | null;
  accountId: string;
  apiKeyId: string;
  event: EventName;
  url: string;
  body: Buffer;
  /** 1, 2 or 3: the attempt being made. */
  number: number;
  /** A test event: the request carries `X-Service-Test: true`. */
  test: boolean;
  /** Epoch ms the attempt was due (for measuring schedule error). */
  dueAt: number;
  leaseToken: string;
}

export interface AttemptResult {
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  errorClass: WebhookAttemptErrorClass | null;
  error: string | null;
  /** Epoch ms of the next attempt; null when the delivery is finished. */
  nextAttemptAt: number | null;
  succeeded: boolean;
}

export interface ExhaustedDelivery {
  id: string;
  jobId: string | null;
  accountId: string;
  event: EventName;
  url: string;
}

export const INTERRUPTED_MESSAGE =
  'The service stopped while this attempt was in flight; it may or may not have reached the receiver.';

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
 * Every query of the webhooks schema. Times are the dispatcher's clock (epoch ms, passed in), so
 * that timers and the due/lease comparisons in SQL agree to the millisecond.
 *
 * An attempt starts in one of two ways, each counted and leased before anything is sent: `insert`
 * (attempt 1, claimed with the delivery itself) and `claim` (any due attempt). `recordAttempts`
 * ends it, `releaseClaim` gives back one that could not start, `failExhausted` ends a delivery
 * whose last attempt was interrupted.
 */
@Injectable()
export class DeliveriesRepository {
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
    const rows = await sqlRows<{ id: string; attempts_made: number }>(
      this.db,
      `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::uuid[], $5::uuid[], $6::uuid[], $7::text[], $8::text[],
                              $9::text[], $10::bytea[], $11::timestamptz[], $12::boolean[], $16::boolean[])
           AS t(id, event_id, redelivery_of, job_id, account_id, api_key_id, event, url, url_source, body, next_attempt_at, claimed, test)
       ), inserted AS (
         INSERT INTO deliveries (id, event_id, redelivery_of, job_id, account_id, api_key_id, event, url, url_source, body,
                                 status, attempts_made, next_attempt_at, lease_token, lease_until, test)
         SELECT id, event_id, redelivery_of, job_id, account_id, api_key_id, event, url, url_source, body,
                'pending', CASE WHEN claimed THEN 1 ELSE 0 END, next_attempt_at,
                CASE WHEN claimed THEN $13::uuid END, CASE WHEN claimed THEN $14::timestamptz END, test
         FROM input
         ON CONFLICT DO NOTHING
         RETURNING id, attempts_made
       ), started AS (
         INSERT INTO attempts (delivery_id, number, started_at) SELECT id, 1, $15::timestamptz FROM inserted WHERE attempts_made = 1
       )
       SELECT id, attempts_made FROM inserted`,
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
        column('body'),
        deliveries.map((d) => new Date(d.firstAttemptAt)),
        deliveries.map((_, i) => i < claim.count),
        token,
        new Date(claim.at + claim.leaseMs),
        new Date(claim.at),
        deliveries.map((d) => d.test ?? false),
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
      `WITH candidates AS (
         SELECT id FROM deliveries
         WHERE id = ANY($1::text[]) AND status = 'pending' AND attempts_made < 3
           AND next_attempt_at <= $2::timestamptz + interval '15 milliseconds'
           AND (lease_until IS NULL OR lease_until <= $2)
         FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE deliveries d SET attempts_made = d.attempts_made + 1, lease_token = $3, lease_until = $4
         FROM candidates c WHERE d.id = c.id
         RETURNING d.id, d.job_id, d.account_id, d.api_key_id, d.event, d.url, d.body, d.attempts_made, d.next_attempt_at, d.test
       ), interrupted AS (
         UPDATE attempts a SET error_class = 'interrupted', error = $5
         FROM claimed c
         WHERE a.delivery_id = c.id AND a.number = c.attempts_made - 1 AND a.duration_ms IS NULL AND a.error_class IS NULL
       ), started AS (
         INSERT INTO attempts (delivery_id, number, started_at) SELECT id, attempts_made, $2 FROM claimed
       )
       SELECT * FROM claimed`,
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
      `WITH input AS (
         SELECT t.* FROM unnest($1::text[], $2::uuid[], $3::smallint[], $4::timestamptz[], $5::integer[], $6::smallint[],
                                $7::text[], $8::text[], $9::text[], $10::timestamptz[], $11::timestamptz[])
             AS t(id, lease_token, number, started_at, duration_ms, status_code, error_class, error, status, next_attempt_at, finished_at),
           (SELECT set_config('synchronous_commit', 'off', true)) AS async_commit
       ), attempt AS (
         UPDATE attempts a SET started_at = i.started_at, duration_ms = i.duration_ms, status_code = i.status_code,
                               error_class = i.error_class, error = i.error
         FROM input i WHERE a.delivery_id = i.id AND a.number = i.number
       )
       UPDATE deliveries d SET status = i.status, next_attempt_at = i.next_attempt_at, finished_at = i.finished_at,
                               lease_token = NULL, lease_until = NULL
       FROM input i WHERE d.id = i.id AND d.lease_token = i.lease_token AND d.status = 'pending'
       RETURNING d.id`,
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
      `SELECT id, next_attempt_at FROM deliveries
       WHERE status = 'pending' AND attempts_made < 3 AND next_attempt_at <= $2
         AND (lease_until IS NULL OR lease_until <= $1)
       ORDER BY next_attempt_at LIMIT $3`,
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
      `WITH exhausted AS (
         SELECT id FROM deliveries
         WHERE status = 'pending' AND attempts_made >= 3 AND lease_until <= $1
         ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED
       ), failed AS (
         UPDATE deliveries d SET status = 'failed', next_attempt_at = NULL, finished_at = $1, lease_token = NULL, lease_until = NULL
         FROM exhausted e WHERE d.id = e.id
         RETURNING d.id, d.job_id, d.account_id, d.event, d.url, d.attempts_made
       ), interrupted AS (
         UPDATE attempts a SET error_class = 'interrupted', error = $3
         FROM failed f WHERE a.delivery_id = f.id AND a.number = f.attempts_made AND a.duration_ms IS NULL AND a.error_class IS NULL
       )
       SELECT id, job_id, account_id, event, url FROM failed`,
      [new Date(now), limit, INTERRUPTED_MESSAGE],
    );
    return rows.map((r) => ({ id: r.id, jobId: r.job_id, accountId: r.account_id, event: r.event, url: r.url }));
  }

  /** The deliveries of one job of one account, oldest first. Customer reads run again after a transient failure. */
  listForJob(accountId: string, jobId: string): Promise<DeliveryEntity[]> {
    return retryTransient(() => this.db.getRepository(DeliveryEntity).find({ where: { accountId, jobId }, order: { createdAt: 'ASC', id: 'ASC' } }));
  }

  /** The attempts of the given deliveries of one account. */
  async attemptsOf(accountId: string, deliveryIds: string[]): Promise<AttemptEntity[]> {
    if (deliveryIds.length === 0) return [];
    return retryTransient(() =>
      this.db
        .getRepository(AttemptEntity)
        .createQueryBuilder('a')
        .innerJoin(DeliveryEntity, 'd', 'd.id = a.delivery_id')
        .where('d.account_id = :accountId AND a.delivery_id IN (:...deliveryIds)', { accountId, deliveryIds })
        .orderBy('a.delivery_id')
        .addOrderBy('a.number')
        .getMany(),
    );
  }

  /** The latest test events of one key of one account, newest first. */
  listTestsForKey(accountId: string, apiKeyId: string, limit: number): Promise<DeliveryEntity[]> {
    return retryTransient(() =>
      this.db.getRepository(DeliveryEntity).find({ where: { accountId, apiKeyId, test: true }, order: { createdAt: 'DESC', id: 'DESC' }, take: limit }),
    );
  }

  findForAccount(accountId: string, deliveryId: string): Promise<DeliveryEntity | null> {
    return retryTransient(() => this.db.getRepository(DeliveryEntity).findOneBy({ accountId, id: deliveryId }));
  }
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
