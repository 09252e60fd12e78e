import { schemaDrift } from '@gen/testing';
import { openGenerationDatabase } from './generation.database';

/** Integration (real PostgreSQL): entities and migrations agree; generating a migration from the entities would produce nothing. */
describe('generation schema', () => {
  it('has no difference between the entities and the migrated schema', async () => {
    expect(await schemaDrift((url) => openGenerationDatabase(url, 2))).toEqual([]);
  });
});
