import { openServiceDataSource, ServiceDatabaseOptions } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { WebhooksInit1763700000000 } from './migrations/1763700000000-webhooks-init';

export const WEBHOOKS_SCHEMA = 'webhooks';

export function webhooksDatabaseOptions(url: string, poolSize?: number): ServiceDatabaseOptions {
  return { url, schema: WEBHOOKS_SCHEMA, entities: [], migrations: [WebhooksInit1763700000000], poolSize };
}

export function openWebhooksDatabase(url: string, poolSize?: number): Promise<DataSource> {
  return openServiceDataSource(webhooksDatabaseOptions(url, poolSize));
}
