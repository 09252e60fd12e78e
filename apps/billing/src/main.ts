import 'reflect-metadata';
import { runNatsService } from '@gen/observability';
import { BillingModule } from './billing.module';
import { openBillingDatabase } from './billing.database';
import { readBillingSettings } from './billing.settings';
import { billingRelease } from './billing.release';

/** Distributed mode: the billing service alone, on NATS and its own Postgres schema; health and metrics on HTTP_PORT. */
runNatsService({
  service: 'billing',
  release: billingRelease(),
  readSettings: (env) => readBillingSettings(env),
  openDatabase: openBillingDatabase,
  module: (dataSource, settings) => BillingModule.register(dataSource, settings),
});
