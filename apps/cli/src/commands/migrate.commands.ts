import { billingDatabaseOptions } from '@gen/billing';
import { authDatabaseOptions } from '@gen/gateway';
import { generationDatabaseOptions } from '@gen/generation';
import { createDatabaseIfMissing, runPendingMigrations } from '@gen/persistence';
import { webhooksDatabaseOptions } from '@gen/webhooks';
import { redactedUrl } from '../cli-database';
import { CommandGroup } from '../command-spec';

/** Every schema's pending migrations, each under its advisory lock; the names applied, by schema. */
export async function migrateEverySchema(url: string): Promise<Record<string, string[]>> {
  const applied: Record<string, string[]> = {};
  for (const [schema, options] of [
    ['auth', authDatabaseOptions(url)],
    ['billing', billingDatabaseOptions(url)],
    ['generation', generationDatabaseOptions(url)],
    ['webhooks', webhooksDatabaseOptions(url)],
  ] as const) {
    applied[schema] = await runPendingMigrations(options);
  }
  return applied;
}

/** The migration job: every schema's pending migrations, each under its advisory lock. */
export const MIGRATE: CommandGroup = {
  name: 'migrate',
  summary: "Apply every service's pending database migrations (auth, billing, generation, webhooks) and exit.",
  commands: {
    '': {
      summary: "Apply every service's pending database migrations (auth, billing, generation, webhooks) and exit.",
      options: {
        'create-database': { description: 'first create the database DATABASE_URL names, if it does not exist', flag: true },
      },
      mayCreateData: true,
      prepare: async (o, where) => {
        if (o['create-database'] !== true || !where.databaseUrl) return;
        const created = await createDatabaseIfMissing(where.databaseUrl);
        process.stderr.write(`${created ? 'Created' : 'Found'} the database of ${redactedUrl(where.databaseUrl)}.\n`);
      },
      run: async (_o, { database, out }) => {
        const applied = await migrateEverySchema(database.url);
        const lines = Object.entries(applied).map(([schema, names]) => `${schema}: ${names.length ? names.join(', ') : 'up to date'}`);
        out(lines.join('\n'), { applied });
      },
    },
  },
};
