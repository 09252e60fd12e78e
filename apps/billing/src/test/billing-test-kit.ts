import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { PlanName } from '@gen/contracts';
import { openBillingDatabase } from '../billing.database';
import type { BillingBatchSettings } from '../holds/billing-batch.settings';
import { billingStore, BillingStore } from './billing-store';
import { createTestDatabase, TestDatabase } from '@gen/testing';

export interface BillingTestKit {
  /** The file's own migrated billing database (valid inside tests). */
  readonly dataSource: DataSource;
  readonly repository: BillingStore;
  /** The database's connection URL. */
  readonly url: string;
  /** Another repository on the same database with its own pool and queues: a second billing replica. */
  replica: (batches?: Partial<BillingBatchSettings>) => Promise<BillingStore>;
  /** A new account with `credits` (pro plan, default limits); returns its id. */
  openAccount: (credits: number, plan?: PlanName) => Promise<string>;
}

/**
 * A billing test file's database and repository: created and migrated before the file's tests,
 * closed and dropped after them. Call it at the top of a describe block.
 */
export function billingTestKit(label: string, options: { poolSize?: number; batches?: Partial<BillingBatchSettings> } = {}): BillingTestKit {
  let database: TestDatabase | undefined;
  const opened: DataSource[] = [];
  let repository: BillingStore | undefined;

  beforeAll(async () => {
    database = await createTestDatabase(label);
    opened.push(await openBillingDatabase(database.url, options.poolSize ?? 10));
    repository = billingStore(opened[0], options.batches);
  });
  afterAll(async () => {
    for (const dataSource of opened) await dataSource.destroy();
    await database?.drop();
  });

  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('billingTestKit: use it inside a test (its beforeAll has not run)');
    return value;
  };
  return {
    get dataSource() {
      return ready(opened[0]);
    },
    get repository() {
      return ready(repository);
    },
    get url() {
      return ready(database).url;
    },
    replica: async (batches) => {
      const dataSource = await openBillingDatabase(ready(database).url, options.poolSize ?? 10);
      opened.push(dataSource);
      return billingStore(dataSource, batches ?? options.batches);
    },
    openAccount: async (credits, plan = 'pro') => {
      const accountId = randomUUID();
      await ready(repository).openAccount(accountId, plan, { rpm: 60, parallel: 3 }, credits);
      return accountId;
    },
  };
}
