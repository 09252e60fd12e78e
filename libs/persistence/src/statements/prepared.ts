import type { Pool, PoolClient, QueryResultRow } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import { retryTransient } from './pg-retry';

/** Where a prepared statement runs: a DataSource (its pg pool, autocommit) or a query runner (its connection, its transaction). */
export type PreparedTarget = DataSource | QueryRunner;

/** Names already given to a statement in this process, with their SQL (pg refuses one name for two texts on a connection). */
const defined = new Map<string, string>();

/**
 * A named statement that PostgreSQL parses and plans once per connection (pg's named prepared
 * statements), run on the pg pool behind a TypeORM DataSource: no query builder, no entity metadata,
 * no result reshaping. For the hot statements of a repository; the SQL stays in that repository,
 * declared once at module level:
 *
 *   const findAccount = new PreparedStatement<AccountRow>('billing.find_account', `SELECT ... WHERE account_id = $1`);
 *   const rows = await findAccount.rows(this.db, [accountId]);
 *
 * Rows come as pg returns them (bigint and numeric as strings). Names are global to the process:
 * prefix them with the service. Each DataSource has its own pool and search_path, so a statement is
 * prepared in the schema of the DataSource it runs on.
 *
 * `planEachRun`: for a statement that joins a table that grows to the rows of an input array (an
 * `UPDATE ... FROM unnest(...)`). A named statement soon runs a plan made once for any values; made
 * while the table was small (a fresh install, the first minute after a deploy), that plan hashes the
 * whole table, and it is kept, per connection, until the table's statistics next change, while the
 * table grows by thousands of rows a second. Sent unnamed, the statement is planned at each run for
 * the table as it is (parse and plan: tenths of a millisecond, once per batch).
 */
export class PreparedStatement<R extends QueryResultRow> {
  constructor(
    readonly name: string,
    readonly text: string,
    private readonly options: {
      planEachRun?: boolean;
      /**
       * Safe to run twice (a read, or a write keyed by ids that a second run leaves unchanged): run on
       * a DataSource, it is run again after a transient failure (retryTransient). Never inside a
       * transaction (a query runner), whose failure is the whole transaction's to handle.
       */
      idempotent?: boolean;
    } = {},
  ) {
    const known = defined.get(name);
    if (known !== undefined && known !== text) throw new Error(`Prepared statement "${name}" is already defined with other SQL`);
    defined.set(name, text);
  }

  async rows(target: PreparedTarget, values: unknown[] = []): Promise<R[]> {
    const config = this.options.planEachRun ? { text: this.text, values } : { name: this.name, text: this.text, values };
    if ('createQueryRunner' in target) {
      const pool = poolOf(target);
      const result = this.options.idempotent ? await retryTransient(() => pool.query<R>(config)) : await pool.query<R>(config);
      return result.rows;
    }
    const client = (await target.connect()) as PoolClient;
    const result = await client.query<R>(config);
    return result.rows;
  }
}

function poolOf(dataSource: DataSource): Pool {
  const pool = (dataSource.driver as unknown as { master?: Pool }).master;
  if (!pool || typeof pool.query !== 'function') {
    throw new Error('PreparedStatement: the DataSource is not an initialized PostgreSQL DataSource');
  }
  return pool;
}
