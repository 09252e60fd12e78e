import type { DataSource } from 'typeorm';
import { createTestDatabase } from './test-database';

/**
 * What TypeORM would generate as a migration from the entities, against a database migrated by the
 * service's own migrations: empty when entities and migrations agree (CONTRIBUTING.md, "Data").
 */
export async function schemaDrift(open: (url: string) => Promise<DataSource>): Promise<string[]> {
  const database = await createTestDatabase('schema');
  const db = await open(database.url);
  try {
    return (await db.driver.createSchemaBuilder().log()).upQueries.map((q) => q.query);
  } finally {
    await db.destroy();
    await database.drop();
  }
}
