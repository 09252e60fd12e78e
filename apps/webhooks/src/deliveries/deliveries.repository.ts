import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { sqlRows } from '@gen/persistence';
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
  jobId: string;
  accountId: string;
  apiKeyId: string;
  event: EventName;
  url: string;
  urlSource: DestinationSource;
  body: Buffer;
  /** Epoch ms of attempt 1 (now). */
  firstAttemptAt: number;
}

/** A delivery claimed for one attempt: what the attempt needs, and the token that proves the claim. */
export interface ClaimedAttempt {
  deliveryId: string;
  jobId: string;
  accountId: string;
  apiKeyId: string;
  event: EventName;
  url: string;
  body: Buffer;
  /** 1, 2 or 3: the attempt being made. */
  number: number;
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
  jobId: string;
  accountId: string;
  event: EventName;
  url: string;
}

export const INTERRUPTED_MESSAGE =
  'The service stopped while this attempt was in flight; it may or may not have reached the receiver.';

interface ClaimRow {
  id: string;
  job_id: string;
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
 */
@Injectable()
export class DeliveriesRepository {
  constructor(@Inject(WEBHOOKS_DB) private readonly db: DataSource) {}

  async existsForEvent(eventId: string): Promise<boolean> {
    const rows = await sqlRows<unknown>(this.db, `SELECT 1 FROM deliveries WHERE event_id = $1`, [eventId]);
    return rows.length > 0;
  }

  /**
   * Inserts a delivery due at once. For an event delivery, a second insert of the same event is a
   * no-op (returns false); a redelivery while another redelivery of the job is pending also returns false.
   */
  async insert(d: NewDelivery): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(
      this.db,
      `INSERT INTO deliveries (id, event_id, redelivery_of, job_id, account_id, api_key_id, event, url, url_source, body,
                               status, attempts_made, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', 0, $11)
       ON CONFLICT DO NOTHING RETURNING id`,
      [d.id, d.eventId, d.redeliveryOf, d.jobId, d.accountId, d.apiKeyId, d.event, d.url, d.urlSource, d.body, new Date(d.firstAttemptAt)],
    );
    return rows.length > 0;
  }

  /**
   * Claims the given deliveries for their next attempt if they are due (`at` with a few ms of
   * tolerance for timer rounding), not leased by anyone and have an attempt left. The attempt is
   * counted and recorded as in flight in the same statement, before anything is sent: a crash
   * after this point can never lead to a fourth send. An earlier attempt left in flight by a process
   * that died (its lease expired) is marked interrupted.
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
         RETURNING d.id, d.job_id, d.account_id, d.api_key_id, d.event, d.url, d.body, d.attempts_made, d.next_attempt_at
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
      dueAt: new Date(r.next_attempt_at).getTime(),
      leaseToken: token,
    }));
  }

  /**
   * Records an attempt's outcome and schedules the next one (or finishes the delivery), in one
   * statement. Only the holder of the lease changes the delivery; returns false if the lease was lost.
   *
   * Committed without waiting for the WAL flush (`synchronous_commit = off`): the claim before the
   * send was flushed, so if the database server itself crashes in the next few hundred ms and loses
   * this outcome, the lease expires and the attempt counts as interrupted (never a fourth attempt).
   * A process crash (the usual case) loses nothing: the commit is in the server.
   */
  async recordAttempt(claim: ClaimedAttempt, result: AttemptResult): Promise<boolean> {
    const finished = result.succeeded || result.nextAttemptAt === null;
    const status = result.succeeded ? 'succeeded' : finished ? 'failed' : 'pending';
    return this.db.transaction(async (tx) => {
      await tx.query(`SET LOCAL synchronous_commit TO OFF`);
      const rows = await sqlRows<{ id: string }>(
        tx,
        `WITH attempt AS (
           UPDATE attempts SET started_at = $3, duration_ms = $4, status_code = $5, error_class = $6, error = $7
           WHERE delivery_id = $1 AND number = $8
         )
         UPDATE deliveries SET status = $9, next_attempt_at = $10, finished_at = $11, lease_token = NULL, lease_until = NULL
         WHERE id = $1 AND lease_token = $2 AND status = 'pending' RETURNING id`,
        [
          claim.deliveryId,
          claim.leaseToken,
          new Date(result.startedAt),
          result.durationMs,
          result.statusCode,
          result.errorClass,
          result.error,
          claim.number,
          status,
          finished ? null : new Date(result.nextAttemptAt as number),
          finished ? new Date(result.startedAt + result.durationMs) : null,
        ],
      );
      return rows.length > 0;
    });
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
    const rows = await sqlRows<{ id: string; job_id: string; account_id: string; event: EventName; url: string }>(
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

  /** The deliveries of one job of one account, oldest first. */
  listForJob(accountId: string, jobId: string): Promise<DeliveryEntity[]> {
    return this.db.getRepository(DeliveryEntity).find({ where: { accountId, jobId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** The attempts of the given deliveries of one account. */
  async attemptsOf(accountId: string, deliveryIds: string[]): Promise<AttemptEntity[]> {
    if (deliveryIds.length === 0) return [];
    return this.db
      .getRepository(AttemptEntity)
      .createQueryBuilder('a')
      .innerJoin(DeliveryEntity, 'd', 'd.id = a.delivery_id')
      .where('d.account_id = :accountId AND a.delivery_id IN (:...deliveryIds)', { accountId, deliveryIds })
      .orderBy('a.delivery_id')
      .addOrderBy('a.number')
      .getMany();
  }

  findForAccount(accountId: string, deliveryId: string): Promise<DeliveryEntity | null> {
    return this.db.getRepository(DeliveryEntity).findOneBy({ accountId, id: deliveryId });
  }
}
