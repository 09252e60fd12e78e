import { DynamicModule, Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { MetricsRegistry } from '@gen/observability';
import type { DataSource } from 'typeorm';
import { AccountEventsController } from './account-events/account-events.controller';
import { AccountEventsRepository } from './account-events/account-events.repository';
import { AccountEventsService } from './account-events/account-events.service';
import { BatchEventsController } from './batch-events/batch-events.controller';
import { BatchEventsService } from './batch-events/batch-events.service';
import { DeliveriesController } from './deliveries-api/deliveries.controller';
import { DeliveryAttemptsRepository } from './deliveries/delivery-attempts.repository';
import { DeliveryReadsRepository } from './deliveries/delivery-reads.repository';
import { DeliveriesService } from './deliveries-api/deliveries.service';
import { DeliveryDispatcher } from './dispatch/delivery-dispatcher.service';
import { WebhookSender } from './dispatch/webhook-sender';
import { WebhookSecretsService } from './keys/webhook-secrets.service';
import { parseAllowList } from '@gen/webhook-policy';
import { destinationPolicy, ResolvedWebhooksSettings, resolveWebhooksSettings, WebhooksSettings } from './config/webhooks.settings';
import { WEBHOOKS_DB, WEBHOOKS_SETTINGS } from './config/webhooks.tokens';
import { DeliveryMetrics, PrometheusDeliveryMetrics } from './metrics/delivery-metrics';
import { DeliveryStatsRepository } from './metrics/delivery-stats.repository';
import { TestEventsController } from './test-events/test-events.controller';
import { TestEventsService } from './test-events/test-events.service';

export type { WebhooksSettings } from './config/webhooks.settings';

@Module({})
export class WebhooksModule {
  /** `dataSource` is the service's own, already migrated (see openWebhooksDatabase()). */
  static register(options: { dataSource: DataSource; settings: WebhooksSettings }): DynamicModule {
    const settings = resolveWebhooksSettings(options.settings);
    // A bad allow-list entry stops start-up here, naming the entry.
    parseAllowList(settings.allowList);
    return {
      module: WebhooksModule,
      controllers: [DeliveriesController, TestEventsController, AccountEventsController, BatchEventsController],
      providers: [
        { provide: WEBHOOKS_DB, useValue: options.dataSource },
        { provide: WEBHOOKS_SETTINGS, useValue: settings },
        {
          provide: WebhookSender,
          inject: [WEBHOOKS_SETTINGS],
          useFactory: (s: ResolvedWebhooksSettings) => new WebhookSender(destinationPolicy(s), { connectionsPerOrigin: s.connectionsPerOrigin }),
        },
        DeliveryAttemptsRepository,
        DeliveryReadsRepository,
        WebhookSecretsService,
        DeliveryDispatcher,
        DeliveriesService,
        TestEventsService,
        AccountEventsRepository,
        AccountEventsService,
        BatchEventsService,
        DeliveryStatsRepository,
        {
          provide: DeliveryMetrics,
          inject: [{ token: MetricsRegistry, optional: true }, DeliveryStatsRepository, ModuleRef],
          // Without the observability module (tools, unit tests) the metrics go to a private registry.
          // The dispatcher reports to the metrics, so its stats are looked up at scrape time (no cycle).
          useFactory: (registry: MetricsRegistry | undefined, stats: DeliveryStatsRepository, moduleRef: ModuleRef) =>
            new PrometheusDeliveryMetrics(registry ?? new MetricsRegistry('webhooks', { defaultMetrics: false }), stats, () =>
              moduleRef.get(DeliveryDispatcher, { strict: true }).stats(),
            ),
        },
      ],
      exports: [DeliveriesService, DeliveryDispatcher],
    };
  }
}
