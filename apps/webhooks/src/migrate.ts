import 'reflect-metadata';
import { migrationMain } from '@gen/persistence';
import { webhooksDatabaseOptions } from './webhooks.database';

/** The webhooks service's migration job (its image's init container): the webhooks schema only, then exit. */
migrationMain((url) => webhooksDatabaseOptions(url));
