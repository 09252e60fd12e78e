import { schemaDrift } from '@gen/testing';
import { openBillingDatabase } from './billing.database';

/** Integration (real PostgreSQL): entities and migrations agree; generating a migration from the entities would produce nothing. */
describe('billing schema', () => {
  it('has no difference between the entities and the migrated schema', async () => {
    expect(await schemaDrift((url) => openBillingDatabase(url, 2))).toEqual([]);
  });
});
