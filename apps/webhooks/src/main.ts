import 'reflect-metadata';
import { runNatsService } from '@gen/observability';
import { openWebhooksDatabase } from './webhooks.database';
import { WebhooksModule } from './webhooks.module';
import { readWebhooksSettings } from './config/webhooks.settings';
import { webhooksRelease } from './webhooks.release';

/** Distributed mode: the webhooks service (deliveries and their attempts); health and metrics on HTTP_PORT. */
runNatsService({
  service: 'webhooks',
  release: webhooksRelease(),
  readSettings: (env) => readWebhooksSettings(env),
  openDatabase: openWebhooksDatabase,
  // Deliveries in flight finish (the dispatcher's shutdown hooks bound them); unacknowledged events are redelivered.
  module: (dataSource, settings) => WebhooksModule.register({ dataSource, settings }),
});
