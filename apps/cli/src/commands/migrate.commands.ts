import { billingDatabaseOptions } from '@gen/billing';
import { ValidationError } from '@gen/errors';
import { authDatabaseOptions } from '@gen/gateway';
import { generationDatabaseOptions } from '@gen/generation';
import { createDatabaseIfMissing, runPendingMigrations, ServiceDatabaseOptions } from '@gen/persistence';
import { webhooksDatabaseOptions } from '@gen/webhooks';
import { redactedUrl } from '../context/cli-database';
import { CommandGroup, str } from '../context/command-spec';

/** Each service's schema and its migrations, in the order plain `migrate` applies them. */
const SERVICE_DATABASES: Record<string, (url: string) => ServiceDatabaseOptions> = {
  gateway: (url) => authDatabaseOptions(url),
  billing: (url) => billingDatabaseOptions(url),
  generation: (url) => generationDatabaseOptions(url),
  webhooks: (url) => webhooksDatabaseOptions(url),
};

/** The services `--service` names (all four when absent); an unknown name is a usage error. */
export function servicesToMigrate(service: string | undefined): string[] {
  if (service === undefined) return Object.keys(SERVICE_DATABASES);
  if (!(service in SERVICE_DATABASES)) {
    throw new ValidationError(`--service must be one of ${Object.keys(SERVICE_DATABASES).join(', ')} (got "${service.slice(0, 40)}")`);
  }
  return [service];
}

/** Every schema's pending migrations, each under its advisory lock; the names applied, by schema. */
export async function migrateEverySchema(url: string): Promise<Record<string, string[]>> {
  const applied: Record<string, string[]> = {};
  for (const service of Object.keys(SERVICE_DATABASES)) {
    const options = SERVICE_DATABASES[service](url);
    applied[options.schema] = await runPendingMigrations(options);
  }
  return applied;
}

/**
 * The migration job: every schema's pending migrations, or one service's (`--service`: what a
 * Deployment's init container runs, so deploying billing never migrates generation), each under
 * its advisory lock.
 */
export const MIGRATE: CommandGroup = {
  name: 'migrate',
  summary: "Apply every service's pending database migrations (auth, billing, generation, webhooks), or one service's, and exit.",
  commands: {
    '': {
      summary: "Apply every service's pending database migrations (auth, billing, generation, webhooks), or one service's, and exit.",
      options: {
        'create-database': { description: 'first create the database DATABASE_URL names, if it does not exist', flag: true },
        service: { description: "only this service's schema: gateway (auth), billing, generation or webhooks" },
      },
      mayCreateData: true,
      prepare: async (o, where) => {
        servicesToMigrate(str(o, 'service'));
        if (o['create-database'] !== true || !where.databaseUrl) return;
        const created = await createDatabaseIfMissing(where.databaseUrl);
        process.stderr.write(`${created ? 'Created' : 'Found'} the database of ${redactedUrl(where.databaseUrl)}.\n`);
      },
      run: async (o, { database, out }) => {
        const applied: Record<string, string[]> = {};
        for (const service of servicesToMigrate(str(o, 'service'))) {
          const options = SERVICE_DATABASES[service](database.url);
          applied[options.schema] = await runPendingMigrations(options);
        }
        const lines = Object.entries(applied).map(([schema, names]) => `${schema}: ${names.length ? names.join(', ') : 'up to date'}`);
        out(lines.join('\n'), { applied });
      },
    },
  },
};
