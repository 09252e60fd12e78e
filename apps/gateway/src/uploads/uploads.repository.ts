import { Inject, Injectable } from '@nestjs/common';
import { readRows, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';

/** An upload as the service uses it. */
export interface UploadRow {
  id: string;
  accountId: string;
  objectKey: string;
  contentType: string;
  bytes: number;
  /** The media URL it was fetched from, or null for a `POST /uploads`. */
  sourceUrl: string | null;
  expiresAt: Date;
  /** True once `expires_at` has passed (database clock), until the janitor deletes it. */
  expired: boolean;
}

interface Row {
  id: string;
  account_id: string;
  object_key: string;
  content_type: string;
  bytes: string;
  source_url: string | null;
  expires_at: Date;
  expired: boolean;
}

const COLUMNS = `id, account_id, object_key, content_type, bytes, source_url, expires_at, expires_at <= now() AS expired`;

function toUpload(row: Row): UploadRow {
  return {
    id: row.id,
    accountId: row.account_id,
    objectKey: row.object_key,
    contentType: row.content_type,
    bytes: Number(row.bytes),
    sourceUrl: row.source_url,
    expiresAt: row.expires_at,
    expired: row.expired,
  };
}

/** Uploads (schema `auth`). Every read is by account: another account's upload is never found. */
@Injectable()
export class UploadsRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /** Records an object already written; it is usable for `ttlSeconds` (database clock). */
  async insert(upload: { id: string; accountId: string; objectKey: string; contentType: string; bytes: number; sourceUrl: string | null }, ttlSeconds: number): Promise<UploadRow> {
    const rows = await sqlRows<Row>(
      this.db,
      `INSERT INTO uploads (id, account_id, object_key, content_type, bytes, source_url, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, now() + $7::int * interval '1 second')
       RETURNING ${COLUMNS}`,
      [upload.id, upload.accountId, upload.objectKey, upload.contentType, upload.bytes, upload.sourceUrl, ttlSeconds],
    );
    return toUpload(rows[0]);
  }

  /** The account's upload with this id (expired ones too, so the caller can say so), or null. */
  async findById(accountId: string, id: string): Promise<UploadRow | null> {
    const rows = await sqlRows<Row>(this.db, `SELECT ${COLUMNS} FROM uploads WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return rows.length === 0 ? null : toUpload(rows[0]);
  }

  /** The account's upload stored under this object key, or null. */
  async findByKey(accountId: string, objectKey: string): Promise<UploadRow | null> {
    const rows = await sqlRows<Row>(this.db, `SELECT ${COLUMNS} FROM uploads WHERE account_id = $1 AND object_key = $2`, [accountId, objectKey]);
    return rows.length === 0 ? null : toUpload(rows[0]);
  }

  /**
   * Up to `limit` uploads expired `graceSeconds` ago or more, oldest first: the caller deletes their
   * objects, then `remove`s the rows. Two replicas sweeping at once is harmless (a missing object is fine).
   */
  async expired(graceSeconds: number, limit: number): Promise<Array<{ id: string; objectKey: string }>> {
    const rows = await sqlRows<{ id: string; object_key: string }>(
      this.db,
      `SELECT id, object_key FROM uploads WHERE expires_at <= now() - $1::int * interval '1 second'
       ORDER BY expires_at LIMIT $2`,
      [graceSeconds, limit],
    );
    return rows.map((row) => ({ id: row.id, objectKey: row.object_key }));
  }

  /** Removes rows whose objects are gone. */
  async remove(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await sqlRows(this.db, `DELETE FROM uploads WHERE id = ANY($1::text[])`, [ids]);
  }

  /** What the account has uploaded today (UTC): bytes and files. */
  async usedToday(accountId: string): Promise<{ bytes: number; files: number }> {
    const [row] = await readRows<{ bytes: string; files: number }>(
      this.db,
      `SELECT bytes::text AS bytes, files FROM upload_usage WHERE account_id = $1 AND day = (now() AT TIME ZONE 'UTC')::date`,
      [accountId],
    );
    return row ? { bytes: Number(row.bytes), files: row.files } : { bytes: 0, files: 0 };
  }

  /**
   * Counts one file of `bytes` against today's quota (UTC), if it fits: one conditional upsert on the
   * account's row for the day, so concurrent uploads cannot together pass the quota. False (nothing
   * counted) when it does not fit. Days before yesterday are deleted on the way.
   */
  async chargeToday(accountId: string, bytes: number, quota: { bytes: number; files: number }): Promise<boolean> {
    if (bytes > quota.bytes || quota.files < 1) return false;
    await this.db.query(`DELETE FROM upload_usage WHERE account_id = $1 AND day < (now() AT TIME ZONE 'UTC')::date - 1`, [accountId]);
    const rows = await sqlRows<{ files: number }>(
      this.db,
      `INSERT INTO upload_usage (account_id, day, bytes, files) VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2, 1)
       ON CONFLICT (account_id, day) DO UPDATE SET bytes = upload_usage.bytes + EXCLUDED.bytes, files = upload_usage.files + 1
        WHERE upload_usage.bytes + EXCLUDED.bytes <= $3 AND upload_usage.files + 1 <= $4
       RETURNING files`,
      [accountId, bytes, quota.bytes, quota.files],
    );
    return rows.length === 1;
  }
}
