import 'reflect-metadata';
import { runNatsService } from '@gen/observability';
import { BillingModule } from './billing.module';
import { openBillingDatabase } from './billing.database';

/** Distributed mode: the billing service alone, on NATS and its own Postgres schema; health and metrics on HTTP_PORT. */
runNatsService({
  service: 'billing',
  defaultHttpPort: 8081,
  readSettings: () => undefined,
  openDatabase: openBillingDatabase,
  module: (dataSource) => BillingModule.register(dataSource),
});
