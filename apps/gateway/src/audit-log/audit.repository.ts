import { Inject, Injectable } from '@nestjs/common';
import { readRows, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';
import type { AuditAction, AuditRecord } from './audit-actions';

/** An audit entry as stored. */
export interface AuditEntry {
  id: string;
  at: Date;
  actorKind: 'user' | 'operator';
  actorId: string | null;
  actor: string;
  ip: string | null;
  action: AuditAction;
  target: string | null;
  details: Record<string, unknown>;
}

export interface AuditFilter {
  /** Entries of this actor (an email or operator name, case-insensitive). */
  actor?: string;
  action?: AuditAction;
}

/**
 * The audit log (`auth.audit_log`, migration 1764870000001). Only appends and reads: there is no
 * update or delete here, and the table's trigger refuses both; entries leave only through
 * `purge_audit_log` at the end of their retention.
 */
@Injectable()
export class AuditRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  async append(record: AuditRecord): Promise<void> {
    const actor = record.actor;
    await sqlRows(
      this.db,
      `INSERT INTO audit_log (account_id, actor_kind, actor_id, actor, ip, action, target, details)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)`,
      [
        record.accountId,
        actor.kind,
        actor.kind === 'user' ? actor.userId : null,
        actor.kind === 'user' ? actor.email : actor.name,
        actor.kind === 'user' ? actor.ip?.slice(0, 100) ?? null : null,
        record.action,
        record.target?.slice(0, 500) ?? null,
        JSON.stringify(record.details ?? {}),
      ],
    );
  }

  /** One account's entries, newest first: `limit` with an id below `beforeId` (all when null). */
  async page(accountId: string, filter: AuditFilter, limit: number, beforeId: string | null): Promise<AuditEntry[]> {
    const rows = await readRows<{
      id: string;
      at: Date;
      actor_kind: 'user' | 'operator';
      actor_id: string | null;
      actor: string;
      ip: string | null;
      action: AuditAction;
      target: string | null;
      details: Record<string, unknown>;
    }>(
      this.db,
      `SELECT id, at, actor_kind, actor_id, actor, ip, action, target, details FROM audit_log
       WHERE account_id = $1 AND ($2::bigint IS NULL OR id < $2::bigint)
         AND ($3::text IS NULL OR lower(actor) = lower($3::text)) AND ($4::text IS NULL OR action = $4::text)
       ORDER BY id DESC LIMIT $5`,
      [accountId, beforeId, filter.actor ?? null, filter.action ?? null, limit],
    );
    return rows.map((r) => ({
      id: String(r.id),
      at: r.at,
      actorKind: r.actor_kind,
      actorId: r.actor_id,
      actor: r.actor,
      ip: r.ip,
      action: r.action,
      target: r.target,
      details: r.details,
    }));
  }

  /** The distinct actors of an account's entries (for the page's filter), most recent first. */
  async actors(accountId: string): Promise<string[]> {
    const rows = await readRows<{ actor: string }>(
      this.db,
      `SELECT actor FROM audit_log WHERE account_id = $1 GROUP BY actor ORDER BY max(id) DESC LIMIT 200`,
      [accountId],
    );
    return rows.map((r) => r.actor);
  }

  /** Deletes the entries older than `days` days (the retention); returns how many. */
  async purgeOlderThan(days: number): Promise<number> {
    const [row] = await sqlRows<{ n: number }>(this.db, `SELECT purge_audit_log($1) AS n`, [days]);
    return Number(row.n);
  }
}
