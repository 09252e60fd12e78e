import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';

/** A JSONL upload (a batch's input file) without its bytes. */
export interface UploadFileRow {
  id: string;
  accountId: string;
  contentType: string;
  bytes: number;
  expiresAt: Date;
  expired: boolean;
}

interface Row {
  id: string;
  account_id: string;
  content_type: string;
  bytes: string;
  expires_at: Date;
  expired: boolean;
}

const COLUMNS = `id, account_id, content_type, bytes, expires_at, expires_at <= now() AS expired`;

const toFile = (row: Row): UploadFileRow => ({
  id: row.id,
  accountId: row.account_id,
  contentType: row.content_type,
  bytes: Number(row.bytes),
  expiresAt: row.expires_at,
  expired: row.expired,
});

/** JSONL uploads (`auth.upload_files`): kept in the database, read only by their own account. */
@Injectable()
export class UploadFilesRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  async insert(file: { id: string; accountId: string; contentType: string; content: Buffer }, ttlSeconds: number): Promise<UploadFileRow> {
    const rows = await sqlRows<Row>(
      this.db,
      `INSERT INTO upload_files (id, account_id, content_type, bytes, content, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + $6::int * interval '1 second')
       RETURNING ${COLUMNS}`,
      [file.id, file.accountId, file.contentType, file.content.length, file.content, ttlSeconds],
    );
    return toFile(rows[0]);
  }

  /** The account's file with this id and its bytes (expired ones too, so the caller can say so), or null. */
  async read(accountId: string, id: string): Promise<{ file: UploadFileRow; content: Buffer } | null> {
    const rows = await sqlRows<Row & { content: Buffer }>(this.db, `SELECT ${COLUMNS}, content FROM upload_files WHERE account_id = $1 AND id = $2`, [accountId, id]);
    return rows.length === 0 ? null : { file: toFile(rows[0]), content: rows[0].content };
  }

  /** Deletes files expired `graceSeconds` ago or more (at most `limit`); returns how many. */
  async deleteExpired(graceSeconds: number, limit: number): Promise<number> {
    const rows = await sqlRows<{ id: string }>(
      this.db,
      `DELETE FROM upload_files WHERE id IN (
         SELECT id FROM upload_files WHERE expires_at <= now() - $1::int * interval '1 second' ORDER BY expires_at LIMIT $2)
       RETURNING id`,
      [graceSeconds, limit],
    );
    return rows.length;
  }
}
