import { createTestDatabase, TestDatabase } from '@gen/testing';
import type { DataSource } from 'typeorm';
import { openWebhooksDatabase } from './webhooks.database';

/** Entities and migrations agree: generating a migration from the entities would produce nothing. */
describe('webhooks schema', () => {
  let database: TestDatabase;
  let db: DataSource;

  beforeAll(async () => {
    database = await createTestDatabase('whschema');
    db = await openWebhooksDatabase(database.url, 2);
  });
  afterAll(async () => {
    await db.destroy();
    await database.drop();
  });

  it('has no difference between the entities and the migrated schema', async () => {
    const sql = await db.driver.createSchemaBuilder().log();
    expect(sql.upQueries.map((q) => q.query)).toEqual([]);
  });
});
