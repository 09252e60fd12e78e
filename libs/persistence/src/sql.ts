import type { DataSource } from 'typeorm';
import { retryTransient } from './statements/pg-retry';

/** Anything with TypeORM's `query` (DataSource, EntityManager, QueryRunner). */
export interface Queryable {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * Runs SQL and returns its rows. TypeORM answers UPDATE and DELETE with `[rows, rowCount]` but
 * everything else with `rows`; this hides the difference so `... RETURNING` reads the same everywhere.
 */
export async function sqlRows<T>(db: Queryable, sql: string, parameters: unknown[] = []): Promise<T[]> {
  const result = await db.query(sql, parameters);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/**
 * `sqlRows` for a read (or any statement safe to run twice) on a DataSource, outside any transaction:
 * run again after a transient failure (a connection lost or refused, the server shutting down or
 * starting, a deadlock or serialization victim) within the transient budget (retryTransient), as the
 * group-committed writes are. Inside a transaction use `sqlRows`: a failure there is the whole
 * transaction's to handle.
 */
export function readRows<T>(db: DataSource, sql: string, parameters: unknown[] = []): Promise<T[]> {
  return retryTransient(() => sqlRows<T>(db, sql, parameters));
}
