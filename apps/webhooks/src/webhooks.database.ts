import { MigrationsMode, openServiceDataSource, ServiceDatabaseOptions } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { AttemptEntity } from './deliveries/attempt.entity';
import { DeliveryEntity } from './deliveries/delivery.entity';
import { WebhooksInit1763700000000 } from './migrations/1763700000000-webhooks-init';
import { WebhooksDeliveries1763800000000 } from './migrations/1763800000000-webhooks-deliveries';
import { WebhooksTestEvents1764500000000 } from './migrations/1764500000000-webhooks-test-events';
import { WebhooksDestinationAtSubmit1764600000000 } from './migrations/1764600000000-webhooks-destination-at-submit';
import { WebhooksAccountEvents1764980000001 } from './migrations/1764980000001-webhooks-account-events';
import { WebhooksBatchEvents1766200000000 } from './migrations/1766200000000-webhooks-batch-events';

export const WEBHOOKS_SCHEMA = 'webhooks';

export function webhooksDatabaseOptions(url: string, poolSize?: number): ServiceDatabaseOptions {
  return {
    url,
    schema: WEBHOOKS_SCHEMA,
    entities: [DeliveryEntity, AttemptEntity],
    migrations: [
      WebhooksInit1763700000000,
      WebhooksDeliveries1763800000000,
      WebhooksTestEvents1764500000000,
      WebhooksDestinationAtSubmit1764600000000,
      WebhooksAccountEvents1764980000001,
      WebhooksBatchEvents1766200000000,
    ],
    poolSize,
  };
}

/** Opens the webhooks schema's DataSource and applies (or, with `verify`, checks) its migrations. */
export function openWebhooksDatabase(url: string, poolSize?: number, migrations: MigrationsMode = 'run'): Promise<DataSource> {
  return openServiceDataSource(webhooksDatabaseOptions(url, poolSize), migrations);
}
