import 'reflect-metadata';
import { runNatsService } from '@gen/observability';
import { parseAllowList } from '@gen/webhook-policy';
import { openWebhooksDatabase } from './webhooks.database';
import { WebhooksModule } from './webhooks.module';
import { WEBHOOKS_DEFAULTS, WebhooksSettings } from './webhooks.settings';

/** Distributed mode: the webhooks service (deliveries and their attempts); health and metrics on HTTP_PORT. */
runNatsService({
  service: 'webhooks',
  defaultHttpPort: 8083,
  readSettings: (env): WebhooksSettings => {
    const settings: WebhooksSettings = {
      allowHttp: env.bool('WEBHOOK_ALLOW_HTTP', false),
      allowPrivateNetworks: env.bool('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
      allowList: env.list('WEBHOOK_ALLOW_LIST'),
      pollIntervalMs: env.int('WEBHOOK_POLL_INTERVAL_MS', WEBHOOKS_DEFAULTS.pollIntervalMs, { min: 50, max: 60_000 }),
      leaseMs: env.int('WEBHOOK_LEASE_MS', WEBHOOKS_DEFAULTS.leaseMs, { min: 8_000, max: 600_000 }),
      maxInFlight: env.int('WEBHOOK_MAX_IN_FLIGHT', WEBHOOKS_DEFAULTS.maxInFlight, { min: 1, max: 10_000 }),
      connectionsPerOrigin: env.int('WEBHOOK_CONNECTIONS_PER_ORIGIN', WEBHOOKS_DEFAULTS.connectionsPerOrigin, {
        min: 1,
        max: 1_000,
      }),
    };
    try {
      parseAllowList(settings.allowList);
    } catch (error) {
      env.problem(`WEBHOOK_ALLOW_LIST: ${(error as Error).message}`);
    }
    return settings;
  },
  openDatabase: openWebhooksDatabase,
  // Deliveries in flight finish (the dispatcher's shutdown hooks bound them); unacknowledged events are redelivered.
  module: (dataSource, settings) => WebhooksModule.register({ dataSource, settings }),
});
