import { join } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import { readSqlFile, retryOnConflict, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';

/** The upstream job a worker submitted one of its jobs as (`<kind>:<id>`, see `Engine.saveUpstreamRef`). */
export interface UpstreamRef {
  jobId: string;
  /** The worker that holds the job; nothing is stored if it no longer does. */
  owner: string;
  ref: string;
}

const SAVE_UPSTREAM_REFS = readSqlFile(join(__dirname, 'save-upstream-refs.sql'));

/** Stores upstream references, many jobs in one statement (`UpstreamRefsWriter` gathers them). */
@Injectable()
export class UpstreamRefsRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  /**
   * One result per item: false when its worker no longer holds the job (canceled meanwhile, or taken
   * over). Synchronous commit: this is what stands between a crash and paying the provider twice.
   * Safe beside heartbeats and parks, which lock the same rows: a deadlock victim runs again, and
   * running it again is harmless (the same reference, the same owner check).
   */
  async saveMany(items: readonly UpstreamRef[]): Promise<boolean[]> {
    const rows = await retryOnConflict(() =>
      sqlRows<{ id: string }>(this.db, SAVE_UPSTREAM_REFS, [items.map((i) => i.jobId), items.map((i) => i.owner), items.map((i) => i.ref)]),
    );
    const saved = new Set(rows.map((r) => r.id.toLowerCase()));
    return items.map((i) => saved.has(i.jobId.toLowerCase()));
  }
}
