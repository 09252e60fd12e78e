import { Injectable, Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { ValidationError } from '@gen/errors';
import { csvRow } from '../http-common/csv';
import { AUDIT_ACTIONS, AuditAction, AuditRecord } from './audit-actions';
import { AuditEntry, AuditFilter, AuditRepository } from './audit.repository';

/** An audit entry as the dashboard, the CSV export and the CLI show it. */
export interface AuditEntryView {
  id: string;
  at: string;
  actor_kind: 'user' | 'operator';
  actor: string;
  ip: string | null;
  action: AuditAction;
  target: string | null;
  details: Record<string, unknown>;
}

export interface AuditPage {
  data: AuditEntryView[];
  next_cursor: string | null;
}

export const AUDIT_CSV_COLUMNS = ['id', 'at', 'actor_kind', 'actor', 'ip', 'action', 'target', 'details'] as const;
const EXPORT_PAGE = 500;

export function toAuditView(entry: AuditEntry): AuditEntryView {
  return {
    id: entry.id,
    at: entry.at.toISOString(),
    actor_kind: entry.actorKind,
    actor: entry.actor,
    ip: entry.ip,
    action: entry.action,
    target: entry.target,
    details: entry.details,
  };
}

/** Checks the filters of a listing: a known action, an actor of sensible length. */
export function auditFilter(query: { actor?: string; action?: string }): AuditFilter {
  const action = query.action?.trim() || undefined;
  if (action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(action)) {
    throw new ValidationError(`action: must be one of ${AUDIT_ACTIONS.join(', ')}`);
  }
  const actor = query.actor?.trim() || undefined;
  if (actor !== undefined && actor.length > 320) throw new ValidationError('actor: must be at most 320 characters');
  return { actor, action: action as AuditAction | undefined };
}

/**
 * The audit log: who (a dashboard user or a CLI operator), when, from which address, did what to
 * what. Append-only: `record` and reads, nothing else (the table refuses updates and deletes).
 */
@Injectable()
export class AuditService {
  private readonly logger = new Logger(AuditService.name);

  constructor(private readonly repository: AuditRepository) {}

  /**
   * Appends one entry, after the action it records succeeded. An entry that cannot be written does
   * not turn the (already done) action into an error: it is logged at error level with everything
   * it would have held, so it is not lost.
   */
  async record(record: AuditRecord): Promise<void> {
    try {
      await this.repository.append(record);
    } catch (error) {
      this.logger.error({ err: error, audit: { ...record, actor: { ...record.actor } } }, 'audit entry not written');
    }
  }

  async page(accountId: string, query: { actor?: string; action?: string; limit?: number; cursor?: string }): Promise<AuditPage> {
    const filter = auditFilter(query);
    const limit = query.limit ?? 50;
    if (query.cursor !== undefined && !/^\d{1,19}$/.test(query.cursor)) throw new ValidationError('cursor: must be the next_cursor of a previous page');
    const rows = await this.repository.page(accountId, filter, limit + 1, query.cursor ?? null);
    const data = rows.slice(0, limit).map(toAuditView);
    return { data, next_cursor: rows.length > limit ? data[data.length - 1].id : null };
  }

  actors(accountId: string): Promise<string[]> {
    return this.repository.actors(accountId);
  }

  /** Every matching entry as CSV (RFC 4180, newest first), read a page at a time while it is sent. */
  async csv(accountId: string, query: { actor?: string; action?: string }): Promise<Readable> {
    const filter = auditFilter(query);
    const first = await this.repository.page(accountId, filter, EXPORT_PAGE, null);
    const repository = this.repository;
    async function* pages(): AsyncGenerator<string> {
      yield csvRow([...AUDIT_CSV_COLUMNS]);
      let page = first;
      while (page.length > 0) {
        yield page.map((e) => csvRow(auditCsvFields(toAuditView(e)))).join('');
        if (page.length < EXPORT_PAGE) return;
        page = await repository.page(accountId, filter, EXPORT_PAGE, page[page.length - 1].id);
      }
    }
    return Readable.from(pages());
  }

  /** Removes the entries past their retention; returns how many. */
  purge(retentionDays: number): Promise<number> {
    return this.repository.purgeOlderThan(retentionDays);
  }
}

export function auditCsvFields(e: AuditEntryView): Array<string | number | null> {
  return [e.id, e.at, e.actor_kind, e.actor, e.ip, e.action, e.target, JSON.stringify(e.details)];
}
