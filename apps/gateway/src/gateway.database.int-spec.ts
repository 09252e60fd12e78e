import { schemaDrift } from '@gen/testing';
import { openAuthDatabase } from './gateway.database';

/** Integration (real PostgreSQL): entities and migrations agree; generating a migration from the entities would produce nothing. */
describe('gateway schema', () => {
  it('has no difference between the entities and the migrated schema', async () => {
    expect(await schemaDrift((url) => openAuthDatabase(url, 2))).toEqual([]);
  });
});
