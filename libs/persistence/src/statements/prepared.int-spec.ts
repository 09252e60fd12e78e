import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDatabaseIfMissing, dropDatabase } from '../embedded-postgres';
import { PreparedStatement } from './prepared';
import { createServiceDataSource } from '../service-data-source';

const COUNTER = new PreparedStatement<{ n: string }>('persistence-spec.bump', `UPDATE counters SET n = n + $2 WHERE id = $1 RETURNING n`);
const PREPARED = new PreparedStatement<{ name: string }>(
  'persistence-spec.prepared',
  `SELECT name FROM pg_prepared_statements WHERE name LIKE 'persistence-spec.%' ORDER BY name`,
);

/** Integration (real PostgreSQL): named statements on a DataSource's pool and on a query runner's transaction. */
describe('PreparedStatement', () => {
  // The suite's server as jest's globalSetup names it (not through @gen/testing, which builds on this lib).
  const adminUrl = String(process.env.TEST_PG_ADMIN_URL);
  const name = `gen_prepared_${randomBytes(5).toString('hex')}`;
  const database = { url: Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString(), drop: () => dropDatabase(adminUrl, name) };
  let db: DataSource;

  beforeAll(async () => {
    await createDatabaseIfMissing(database.url);
    // One connection: what the pool's only client has prepared is visible to it.
    db = await createServiceDataSource({ url: database.url, schema: 'spec', entities: [], migrations: [], poolSize: 1 }).initialize();
    await db.query(`CREATE SCHEMA spec`);
    await db.query(`CREATE TABLE counters (id integer PRIMARY KEY, n bigint NOT NULL)`);
    await db.query(`INSERT INTO counters VALUES (1, 0)`);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it("runs on the DataSource's pool, in the DataSource's schema, prepared once per connection", async () => {
    expect(await COUNTER.rows(db, [1, 5])).toEqual([{ n: '5' }]);
    expect(await COUNTER.rows(db, [1, 2])).toEqual([{ n: '7' }]);
    expect(await COUNTER.rows(db, [2, 1])).toEqual([]);
    expect(await PREPARED.rows(db)).toEqual([{ name: 'persistence-spec.bump' }, { name: 'persistence-spec.prepared' }]);
  });

  it("runs on a query runner's connection, inside its transaction", async () => {
    const [before] = await db.query(`SELECT n FROM counters WHERE id = 1`);
    const runner = db.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      expect(await COUNTER.rows(runner, [1, 100])).toEqual([{ n: String(Number(before.n) + 100) }]);
      await runner.rollbackTransaction();
    } finally {
      await runner.release();
    }
    expect(await db.query(`SELECT n FROM counters WHERE id = 1`)).toEqual([before]);
  });

  it('plans a planEachRun statement at each run: a table that grew since is not scanned whole, as it is by the plan a named statement kept', async () => {
    const join = `UPDATE grows SET v = v + 1 FROM unnest($1::int[]) AS f(id) WHERE grows.id = f.id RETURNING grows.id`;
    const named = new PreparedStatement<{ id: number }>('persistence-spec.join-named', join);
    const eachRun = new PreparedStatement<{ id: number }>('persistence-spec.join-each-run', join, { planEachRun: true });
    await db.query(`CREATE TABLE grows (id integer PRIMARY KEY, v integer NOT NULL)`);
    await db.query(`INSERT INTO grows SELECT i, 0 FROM generate_series(1, 5) AS i`);
    await db.query(`ANALYZE grows`);
    // While the table is small, the named statement settles on a plan for any values (after five runs).
    for (let i = 0; i < 8; i++) {
      expect(await named.rows(db, [[1, 2]])).toHaveLength(2);
      expect(await eachRun.rows(db, [[1, 2]])).toHaveLength(2);
    }
    await db.query(`INSERT INTO grows SELECT i, 0 FROM generate_series(6, 50000) AS i`);
    const runner = db.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      // This transaction's own counters (pg_stat_xact_*: not waiting for the statistics to be published).
      const seqScans = async () => Number((await runner.query(`SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 'grows'`))[0].seq_scan);
      const before = await seqScans();
      expect(await named.rows(runner, [[40000, 40001]])).toHaveLength(2);
      const afterNamed = await seqScans();
      expect(await eachRun.rows(runner, [[40002, 40003]])).toHaveLength(2);
      expect({ named: afterNamed - before, eachRun: (await seqScans()) - afterNamed }).toEqual({ named: 1, eachRun: 0 });
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    // Only the named one is kept by the connection.
    expect((await PREPARED.rows(db)).map((r) => r.name)).toContain('persistence-spec.join-named');
    expect((await PREPARED.rows(db)).map((r) => r.name)).not.toContain('persistence-spec.join-each-run');
  });

  it('refuses a second statement under a name already used for other SQL', () => {
    expect(() => new PreparedStatement('persistence-spec.bump', 'SELECT 1')).toThrow('Prepared statement "persistence-spec.bump" is already defined with other SQL');
    expect(() => new PreparedStatement('persistence-spec.bump', COUNTER.text)).not.toThrow();
  });
});
