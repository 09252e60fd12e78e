import { schemaDrift } from '@gen/testing';
import { openWebhooksDatabase } from './webhooks.database';

/** Integration (real PostgreSQL): entities and migrations agree; generating a migration from the entities would produce nothing. */
describe('webhooks schema', () => {
  it('has no difference between the entities and the migrated schema', async () => {
    expect(await schemaDrift((url) => openWebhooksDatabase(url, 2))).toEqual([]);
  });
});
