import { NestFactory } from '@nestjs/core';
import { BillingModule, BillingService, KeyCapsService, openBillingDatabase, PaymentsService, SubscriptionsService } from '@gen/billing';
import { defaultsOf } from '@gen/config';
import {
  ApiKeysService,
  AuditService,
  GATEWAY_VARIABLES,
  GatewayModule,
  GatewaySettings,
  KeyWebhooksService,
  LowBalanceAlertsService,
  openAuthDatabase,
  ProvisioningService,
  WebhookSecretKeyRing,
} from '@gen/gateway';
import { loadStandaloneConfig } from '@gen/standalone';
import { Broadcaster, InProcessBus, InProcessServer, TransportModule } from '@gen/transport';
import { relayBroadcastsToNats } from './cli-broadcast';
import { withApp, withDataSources, cliModule } from './cli-context';
import type { CliDatabase } from './cli-database';
import { readCliKeyWebhookSettings, readSettings } from './cli.settings';

/** What the account, key, credit, plan and audit commands use of the gateway and billing. */
export interface GatewayServices {
  provisioning: ProvisioningService;
  keys: ApiKeysService;
  keyWebhooks: KeyWebhooksService;
  billing: BillingService;
  caps: KeyCapsService;
  audit: AuditService;
  broadcaster: Broadcaster;
  lowBalance: LowBalanceAlertsService;
  /** Packs and the account's Stripe customer (no calls to Stripe: the CLI reads and writes billing's tables). */
  payments: PaymentsService;
  /** The plans sold as Stripe subscriptions (`plans price`). */
  subscriptions: SubscriptionsService;
}

/** The gateway module without its HTTP side: what the account, key and credit commands use of it. */
const GATEWAY_CLI_SETTINGS: GatewaySettings = {
  ...defaultsOf(GATEWAY_VARIABLES, 'cli'),
  publicBaseUrl: '',
  bodyLimitBytes: 0,
  outputsDir: null,
  rpcTimeoutMs: 10_000,
  webhookPolicy: { allowHttp: false, allowPrivate: false, allowList: [] },
};

/**
 * A key's webhook URL and secret need the rules and the encryption keys of the gateway that serves
 * this data: standalone's (its defaults, its key in DATA_DIR/secrets), or a distributed gateway's
 * (WEBHOOK_ALLOW_*, WEBHOOK_SECRET_ENCRYPTION_KEY, read the same way the gateway reads them).
 */
function keyWebhookSettings(database: CliDatabase): { webhookPolicy: GatewaySettings['webhookPolicy']; secretKeys: WebhookSecretKeyRing } {
  if (database.mode === 'standalone') {
    const { gateway } = loadStandaloneConfig({ ...process.env, DATA_DIR: database.dataDir ?? undefined });
    return { webhookPolicy: gateway.settings.webhookPolicy, secretKeys: gateway.secretKeys };
  }
  return readSettings(readCliKeyWebhookSettings);
}

/**
 * Runs `use` with the gateway's and billing's own services on the command's database (`webhooks`:
 * with the key webhook rules and secret keys, for the commands that set a URL or a secret). A
 * deployment's gateways hear of revoked keys and changed plans over NATS, when it is configured.
 */
export async function withGatewayServices(database: CliDatabase, needs: { webhooks: boolean }, use: (services: GatewayServices) => Promise<void>): Promise<void> {
  const webhooks = needs.webhooks ? keyWebhookSettings(database) : null;
  await withDataSources([openAuthDatabase(database.url, 2), openBillingDatabase(database.url, 2)], async ([auth, billing]) => {
    const bus = new InProcessBus();
    const module = cliModule([
      TransportModule.forRoot({ kind: 'in-process', bus }),
      GatewayModule.register({
        dataSource: auth,
        settings: webhooks ? { ...GATEWAY_CLI_SETTINGS, webhookPolicy: webhooks.webhookPolicy } : GATEWAY_CLI_SETTINGS,
        secretKeys: webhooks?.secretKeys,
      }),
      BillingModule.register(billing, {}, { outboxRelay: false }),
    ]);
    const started = NestFactory.createMicroservice(module, { strategy: new InProcessServer(bus), logger: false }).then(async (app) => {
      await app.listen();
      return app;
    });
    await withApp(started, async (app) => {
      const relay = database.mode === 'server' ? relayBroadcastsToNats(process.env, bus.broadcaster) : null;
      try {
        await use({
          provisioning: app.get(ProvisioningService),
          keys: app.get(ApiKeysService),
          keyWebhooks: app.get(KeyWebhooksService),
          billing: app.get(BillingService),
          caps: app.get(KeyCapsService),
          audit: app.get(AuditService),
          broadcaster: app.get(Broadcaster),
          lowBalance: app.get(LowBalanceAlertsService),
          payments: app.get(PaymentsService),
          subscriptions: app.get(SubscriptionsService),
        });
      } finally {
        const problem = await relay?.settle();
        if (problem) {
          process.stderr.write(
            `The running gateways were not told over NATS (${problem}); they see this change within ` +
              'their API key cache TTL (10 s by default) or plan cache (5 s).\n',
          );
        }
      }
    });
  });
}
