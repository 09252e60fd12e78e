import { Inject, Injectable } from '@nestjs/common';
import { readRows, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';

/** A response kept for replays: what the first request answered. */
export interface StoredResponse {
  status: number;
  /** The JSON body exactly as first sent. */
  body: string;
  location: string | null;
}

export interface IdempotencyRow {
  requestHash: Buffer;
  jobId: string;
  state: 'in_progress' | 'completed';
  /** True while the request that holds the key may still be running (database clock). */
  locked: boolean;
  /** Milliseconds until the lock lapses (0 when it has). */
  lockMsLeft: number;
  response: StoredResponse | null;
}

/**
 * Idempotency-Key records (schema `auth`). Every write is guarded by the job id the caller holds,
 * so a request whose lock was taken over can no longer change the record.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /**
   * Inserts the record for a new request (or replaces one past its 24 h), locked for `lockMs`.
   * The primary key decides between concurrent duplicates: true for exactly one of them.
   */
  async claim(accountId: string, key: string, requestHash: Buffer, jobId: string, lockMs: number, ttlMs: number): Promise<boolean> {
    const rows = await sqlRows<unknown>(
      this.db,
      `INSERT INTO idempotency_keys AS k (account_id, key, request_hash, job_id, state, locked_until, expires_at)
       VALUES ($1, $2, $3, $4, 'in_progress', now() + $5::int * interval '1 millisecond', now() + $6::bigint * interval '1 millisecond')
       ON CONFLICT (account_id, key) DO UPDATE SET
         request_hash = EXCLUDED.request_hash, job_id = EXCLUDED.job_id, state = 'in_progress',
         locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at, created_at = now(),
         response_status = NULL, response_body = NULL, response_location = NULL
       WHERE k.expires_at <= now()
       RETURNING 1`,
      [accountId, key, requestHash, jobId, lockMs, ttlMs],
    );
    return rows.length === 1;
  }

  async find(accountId: string, key: string): Promise<IdempotencyRow | null> {
    const rows = await readRows<{
      request_hash: Buffer;
      job_id: string;
      state: 'in_progress' | 'completed';
      lock_ms_left: string;
      response_status: number | null;
      response_body: string | null;
      response_location: string | null;
    }>(
      this.db,
      `SELECT request_hash, job_id, state, response_status, response_body, response_location,
              greatest(0, ceil(extract(epoch FROM locked_until - now()) * 1000)) AS lock_ms_left
       FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND expires_at > now()`,
      [accountId, key],
    );
    if (rows.length === 0) return null;
    const row = rows[0];
    const lockMsLeft = Number(row.lock_ms_left);
    return {
      requestHash: row.request_hash,
      jobId: row.job_id,
      state: row.state,
      locked: lockMsLeft > 0,
      lockMsLeft,
      response:
        row.state === 'completed' && row.response_status !== null && row.response_body !== null
          ? { status: row.response_status, body: row.response_body, location: row.response_location }
          : null,
    };
  }

  /** Takes over a record whose request stopped without finishing (its lock lapsed). True if ours now. */
  async takeOver(accountId: string, key: string, jobId: string, lockMs: number): Promise<boolean> {
    const rows = await sqlRows<unknown>(
      this.db,
      `UPDATE idempotency_keys SET locked_until = now() + $4::int * interval '1 millisecond'
       WHERE account_id = $1 AND key = $2 AND job_id = $3 AND state = 'in_progress' AND locked_until <= now()
       RETURNING 1`,
      [accountId, key, jobId, lockMs],
    );
    return rows.length === 1;
  }

  /** Points a record we hold at another job (its first job was never created). */
  async replaceJob(accountId: string, key: string, jobId: string, newJobId: string): Promise<boolean> {
    const rows = await sqlRows<unknown>(
      this.db,
      `UPDATE idempotency_keys SET job_id = $4
       WHERE account_id = $1 AND key = $2 AND job_id = $3 AND state = 'in_progress' RETURNING 1`,
      [accountId, key, jobId, newJobId],
    );
    return rows.length === 1;
  }

  /** Stores the response for replays. */
  async complete(accountId: string, key: string, jobId: string, response: StoredResponse): Promise<boolean> {
    const rows = await sqlRows<unknown>(
      this.db,
      `UPDATE idempotency_keys SET state = 'completed', response_status = $4, response_body = $5, response_location = $6
       WHERE account_id = $1 AND key = $2 AND job_id = $3 AND state = 'in_progress' RETURNING 1`,
      [accountId, key, jobId, response.status, response.body, response.location],
    );
    return rows.length === 1;
  }

  /** Forgets a record whose request created nothing, so the key can be used again. */
  async forget(accountId: string, key: string, jobId: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND job_id = $3 AND state = 'in_progress'`, [
      accountId,
      key,
      jobId,
    ]);
  }

  /** Lets the next request with the key take over at once (the outcome of ours is unknown). */
  async unlock(accountId: string, key: string, jobId: string): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET locked_until = now()
       WHERE account_id = $1 AND key = $2 AND job_id = $3 AND state = 'in_progress'`,
      [accountId, key, jobId],
    );
  }

  /** Removes records past their expiry; returns how many. */
  async deleteExpired(batch = 10_000): Promise<number> {
    const rows = await sqlRows<unknown>(
      this.db,
      `DELETE FROM idempotency_keys WHERE (account_id, key) IN (
         SELECT account_id, key FROM idempotency_keys WHERE expires_at <= now() LIMIT $1
       ) RETURNING 1`,
      [batch],
    );
    return rows.length;
  }
}
