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
