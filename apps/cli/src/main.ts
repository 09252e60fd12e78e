import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { billingDatabaseOptions, BillingModule, BillingService, openBillingDatabase } from '@gen/billing';
import { JOB_STATUSES, JobStatus } from '@gen/contracts';
import { DomainError, ValidationError } from '@gen/errors';
import { ApiKeysService, authDatabaseOptions, GatewayModule, openAuthDatabase, ProvisioningService } from '@gen/gateway';
import {
  CatalogueAdminModule,
  CatalogueAdminService,
  generationDatabaseOptions,
  JobAdminService,
  JobInspection,
  ListedModel,
  ModelEntry,
  openGenerationDatabase,
} from '@gen/generation';
import { runPendingMigrations } from '@gen/persistence';
import { InProcessBus, InProcessServer, TransportModule } from '@gen/transport';
import { DeliveriesAdminService, openWebhooksDatabase, webhooksDatabaseOptions } from '@gen/webhooks';
import { resolveCliDatabase } from './cli-database';
import { readFileSync } from 'node:fs';
import { COMMANDS, EXIT, parseBoolean, parseDuration, parseInteger, parseJsonObject, parsePlan, parseSince, usage } from './commands';

type Options = Record<string, string | boolean | undefined>;
type Out = (human: string, data: unknown) => void;

function commandOf(positionals: string[]): string | undefined {
  const two = positionals.slice(0, 2).join(' ');
  if (COMMANDS[two]) return two;
  return positionals[0] && COMMANDS[positionals[0]] ? positionals[0] : undefined;
}

/**
 * The operator CLI: accounts, keys, credits, plans, jobs and migrations, straight against the
 * services' own modules and repositories. Exit codes: 0 done, 1 refused, 2 usage, 3 failed.
 */
async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      json: { type: 'boolean' },
      ...Object.fromEntries(
        Object.values(COMMANDS).flatMap((c) =>
          Object.entries(c.options).map(([name, o]) => [name, { type: o.flag ? ('boolean' as const) : ('string' as const) }]),
        ),
      ),
    },
  });
  const command = commandOf(positionals);
  if (values.help) {
    process.stdout.write(usage(command) + '\n');
    return EXIT.ok;
  }
  if (!command) {
    process.stderr.write((positionals.length ? `Unknown command "${positionals.join(' ')}".\n\n` : '') + usage() + '\n');
    return EXIT.usage;
  }
  const options = values as Options;
  for (const [name, option] of Object.entries(COMMANDS[command].options)) {
    if (option.required && typeof options[name] !== 'string') {
      process.stderr.write(`Missing --${name}.\n\n${usage(command)}\n`);
      return EXIT.usage;
    }
  }
  const out: Out = (human, data) =>
    process.stdout.write((options.json ? JSON.stringify(data, null, 2) : human) + '\n');

  try {
    const database = await resolveCliDatabase();
    try {
      if (command === 'migrate') await migrate(database.url, out);
      else if (command.startsWith('jobs ')) await jobs(command, options, database.url, out);
      else if (command === 'deliveries retry') await retryDeliveries(options, database.url, out);
      else if (command.startsWith('models ')) await models(command, options, database.url, out);
      else await services(command, options, database.url, out);
      return EXIT.ok;
    } finally {
      if (database.embedded) await database.embedded.stop();
    }
  } catch (error) {
    if (error instanceof DomainError) {
      process.stderr.write(`Error (${error.code}): ${error.message}\n`);
      if (options.json) process.stdout.write(JSON.stringify({ error: { code: error.code, message: error.message } }, null, 2) + '\n');
      return error.code === 'validation_error' ? EXIT.usage : EXIT.refused;
    }
    process.stderr.write(`Failed: ${(error instanceof Error && error.message) || String(error ?? 'an unknown error (no details given)')}\n`);
    return EXIT.failed;
  }
}

/** The migration job: every schema's pending migrations, each under its advisory lock. */
async function migrate(url: string, out: Out): Promise<void> {
  const applied: Record<string, string[]> = {};
  for (const [schema, options] of [
    ['auth', authDatabaseOptions(url)],
    ['billing', billingDatabaseOptions(url)],
    ['generation', generationDatabaseOptions(url)],
    ['webhooks', webhooksDatabaseOptions(url)],
  ] as const) {
    applied[schema] = await runPendingMigrations(options);
  }
  const lines = Object.entries(applied).map(([schema, names]) => `${schema}: ${names.length ? names.join(', ') : 'up to date'}`);
  out(lines.join('\n'), { applied });
}

function jobLine(job: JobInspection['job']): string {
  const age = job.started_at ?? job.created_at;
  return `${job.id}  ${job.status.padEnd(10)} ${job.model_id.padEnd(16)} attempts ${job.attempts}  since ${new Date(age).toISOString()}  account ${job.account_id}`;
}

async function jobs(command: string, o: Options, url: string, out: Out): Promise<void> {
  const str = (name: string) => (typeof o[name] === 'string' ? (o[name] as string) : undefined);
  const generation = await openGenerationDatabase(url, 2, 'verify');
  const billingDs = await openBillingDatabase(url, 2, 'verify').catch(async (error: unknown) => {
    await generation.destroy();
    throw error;
  });
  const billingApp = await NestFactory.createApplicationContext(BillingModule.register(billingDs), { logger: false });
  try {
    const admin = new JobAdminService(generation, process.env.CDN_BASE_URL ?? '');
    const billing = billingApp.get(BillingService);
    const withHold = async (inspection: JobInspection) => ({ ...inspection, hold: await billing.holdForJob(inspection.job.id) });
    switch (command) {
      case 'jobs list': {
        const status = str('status');
        if (status !== undefined && !(JOB_STATUSES as readonly string[]).includes(status)) {
          throw new ValidationError(`--status must be one of ${JOB_STATUSES.join(', ')}`);
        }
        const limit = parseInteger('limit', str('limit'), 50);
        if (limit < 1 || limit > 1000) throw new ValidationError('--limit must be between 1 and 1000');
        const rows = await admin.list({
          status: status as JobStatus | undefined,
          olderThanSeconds: parseDuration('older-than', str('older-than')),
          accountId: str('account'),
          limit,
        });
        out(rows.map(jobLine).join('\n') || '(no jobs)', rows);
        return;
      }
      case 'jobs inspect': {
        const result = await withHold(await admin.inspect(str('job') as string));
        out(
          [
            jobLine(result.job),
            `lease: ${result.job.lease_owner ?? 'none'}${result.job.lease_expires_at ? ` until ${new Date(result.job.lease_expires_at).toISOString()}` : ''}${result.leaseExpired ? ' (EXPIRED)' : ''}`,
            `error: ${result.job.error ?? '-'}`,
            `hold: ${result.hold ? `${result.hold.amount} credits, ${result.hold.status}` : 'none'}`,
            `events: ${result.events.map((e) => `${e.pattern} ${e.published_at ? 'published' : 'pending'}`).join(', ') || 'none'}`,
          ].join('\n'),
          result,
        );
        return;
      }
      case 'jobs fail': {
        const result = await withHold(await admin.fail(str('job') as string, { force: o.force === true }));
        out(
          [
            `Failed job ${result.job.id} (${str('reason')}).`,
            `Its generation.failed event is in the outbox; billing releases the ${result.hold?.amount ?? 0} held credits once the`,
            "generation service's relay publishes it (seconds, while a generation replica runs).",
          ].join('\n'),
          { ...result, reason: str('reason') },
        );
        return;
      }
    }
  } finally {
    await billingApp.close();
    await Promise.allSettled([generation.destroy(), billingDs.destroy()]);
  }
}

function modelLine(m: ListedModel): string {
  const sync = m.synchronous ? 'sync ' : 'async';
  return `${m.id.padEnd(20)} ${m.status.padEnd(8)} ${m.type.padEnd(14)} ${String(m.credits).padStart(5)} cr (min ${m.minimum_credits})  ${m.min_plan.padEnd(10)} ${sync}  ${m.engine.engine}  ${m.name}`;
}

/** The fields given on the command line, as a catalogue entry (only those given, for update). */
function modelChanges(o: Options): Partial<ModelEntry> {
  const str = (name: string) => (typeof o[name] === 'string' ? (o[name] as string) : undefined);
  const changes: Record<string, unknown> = {
    name: str('name'),
    type: str('type'),
    credits: str('credits') === undefined ? undefined : parseInteger('credits', str('credits')),
    minimum_credits: str('minimum') === undefined ? undefined : parseInteger('minimum', str('minimum')),
    min_plan: str('plan'),
    synchronous: parseBoolean('sync', str('sync')),
    engine: parseJsonObject('engine', str('engine')),
  };
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<ModelEntry>;
}

/** The model catalogue (generation's `models` table); every replica picks a change up within seconds. */
async function models(command: string, o: Options, url: string, out: Out): Promise<void> {
  const id = typeof o.id === 'string' ? o.id : '';
  const generation = await openGenerationDatabase(url, 2, 'verify');
  const app = await NestFactory.createApplicationContext(CatalogueAdminModule.register(generation), { logger: false });
  try {
    const catalogue = app.get(CatalogueAdminService);
    switch (command) {
      case 'models list': {
        const rows = await catalogue.list();
        out(rows.map(modelLine).join('\n') || '(no models)', rows);
        return;
      }
      case 'models add': {
        const model = await catalogue.add({ id, ...modelChanges(o) });
        out(`Added ${modelLine(model)}`, model);
        return;
      }
      case 'models update': {
        const changes = modelChanges(o);
        if (Object.keys(changes).length === 0) throw new ValidationError('Nothing to change: give at least one of --name, --type, --credits, --minimum, --plan, --sync, --engine');
        const model = await catalogue.update(id, changes);
        out(`Updated ${modelLine(model)}`, model);
        return;
      }
      case 'models disable':
      case 'models enable': {
        const model = await catalogue.setStatus(id, command === 'models disable' ? 'disabled' : 'active');
        out(`${command === 'models disable' ? 'Disabled' : 'Enabled'} ${modelLine(model)}`, model);
        return;
      }
      case 'models sync': {
        const file = o.file as string;
        let json: unknown;
        try {
          json = JSON.parse(readFileSync(file, 'utf8'));
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          throw new ValidationError(code ? `Cannot read ${file} (${code})` : `${file} is not valid JSON (${(error as Error).message})`);
        }
        const result = await catalogue.sync(json);
        const part = (label: string, ids: string[]) => `${label} ${ids.length}${ids.length ? ` (${ids.join(', ')})` : ''}`;
        out(
          [part('added', result.added), part('updated', result.updated), part('disabled', result.disabled), part('unchanged', result.unchanged)].join(', '),
          result,
        );
        return;
      }
    }
  } finally {
    await app.close();
    await generation.destroy();
  }
}

const GATEWAY_CLI_SETTINGS = {
  publicBaseUrl: '',
  syncWaitMs: 0,
  bodyLimitBytes: 0,
  outputsDir: null,
  rpcTimeoutMs: 10_000,
  webhookPolicy: { allowHttp: false, allowPrivate: false, allowList: [] },
};

/** Queues redeliveries of failed webhooks; the running webhooks service sends them. */
async function retryDeliveries(o: Options, url: string, out: Out): Promise<void> {
  const str = (name: string) => (typeof o[name] === 'string' ? (o[name] as string) : undefined);
  const since = parseSince(str('since'));
  const limit = parseInteger('limit', str('limit'), 500);
  if (limit < 1 || limit > 10_000) throw new ValidationError('--limit must be between 1 and 10000');
  const webhooks = await openWebhooksDatabase(url, 2, 'verify');
  try {
    // To the generation's own destination, as a customer's redeliver: nothing to ask the keys.
    const outcomes = await new DeliveriesAdminService(webhooks).retryFailedSince(since, {
      accountId: str('account'),
      limit,
      dryRun: o['dry-run'] === true,
    });
    const count = (status: string) => outcomes.filter((r) => r.status === status).length;
    const lines = outcomes.map((r) => `${r.job_id}  ${r.status.padEnd(11)} ${r.destination}${r.reason ? `  (${r.reason})` : ''}`);
    lines.push(
      o['dry-run'] === true
        ? `${count('would_queue')} delivery(ies) would be queued (dry run; nothing sent).`
        : `${count('queued')} redelivery(ies) queued since ${since.toISOString()}, ${count('skipped')} skipped; the webhooks service sends them within seconds.`,
    );
    out(lines.join('\n'), { since: since.toISOString(), deliveries: outcomes });
  } finally {
    await webhooks.destroy();
  }
}

/** Accounts, keys, credits and plans: through the gateway's and billing's own services. */
async function services(command: string, options: Options, url: string, out: Out): Promise<void> {
  const [auth, billing] = await Promise.all([openAuthDatabase(url, 2), openBillingDatabase(url, 2)]);
  const bus = new InProcessBus();
  @Module({
    imports: [
      TransportModule.forRoot({ kind: 'in-process', bus }),
      GatewayModule.register({ dataSource: auth, settings: GATEWAY_CLI_SETTINGS }),
      BillingModule.register(billing),
    ],
  })
  class CliModule {}
  const app = await NestFactory.createMicroservice(CliModule, { strategy: new InProcessServer(bus), logger: false });
  await app.listen();
  try {
    await run(command, options, app.get(ProvisioningService), app.get(ApiKeysService), app.get(BillingService), out);
  } finally {
    await app.close();
    await Promise.allSettled([auth.destroy(), billing.destroy()]);
  }
}

async function run(
  command: string,
  o: Options,
  provisioning: ProvisioningService,
  keys: ApiKeysService,
  billing: BillingService,
  out: Out,
): Promise<void> {
  const str = (name: string) => (typeof o[name] === 'string' ? (o[name] as string) : undefined);
  switch (command) {
    case 'accounts create': {
      const account = await provisioning.createAccount(str('name') as string, parsePlan(str('plan'), 'free'), parseInteger('credits', str('credits'), 0));
      const key = await keys.create(account.accountId, str('key-name') ?? 'default');
      out(
        [
          `Account ${account.accountId} (${account.name}): plan ${account.balance.plan}, ${account.balance.available} credits`,
          `API key (shown only now): ${key.key}`,
        ].join('\n'),
        { account_id: account.accountId, name: account.name, balance: account.balance, api_key: key },
      );
      return;
    }
    case 'accounts list': {
      const accounts = await provisioning.listAccounts();
      const rows = await Promise.all(
        accounts.map(async (a) => ({ id: a.id, name: a.name, created_at: a.createdAt, ...(await billing.balance(a.id)) })),
      );
      out(rows.map((r) => `${r.id}  ${r.plan.padEnd(10)} available ${r.available}  held ${r.held}  ${r.name}`).join('\n') || '(no accounts)', rows);
      return;
    }
    case 'keys create': {
      const scopes = (str('scopes') ?? 'generate,read').split(',').map((s) => s.trim()) as Array<'generate' | 'read'>;
      const key = await keys.create(str('account') as string, str('name') as string, scopes);
      out(`Key ${key.id} (${key.name}, scopes ${key.scopes.join(',')})\nAPI key (shown only now): ${key.key}`, key);
      return;
    }
    case 'keys list': {
      const list = (await keys.list(str('account') as string)).map((k) => ({
        id: k.id,
        name: k.name,
        prefix: `gsk_live_${k.lookupId}`,
        last4: k.last4,
        scopes: k.scopes,
        created_at: k.createdAt,
        last_used_at: k.lastUsedAt,
        revoked_at: k.revokedAt,
      }));
      out(list.map((k) => `${k.id}  ${k.prefix}...${k.last4}  ${k.revoked_at ? 'revoked' : 'active'}  ${k.name}`).join('\n') || '(no keys)', list);
      return;
    }
    case 'keys revoke':
      await keys.revoke(str('account') as string, str('key') as string);
      out('Revoked.', { revoked: true });
      return;
    case 'credits grant': {
      const available = await billing.adjust(str('account') as string, parseInteger('amount', str('amount')), str('note') ?? 'operator grant');
      out(`Available credits: ${available}`, { available });
      return;
    }
    case 'plans set': {
      const rpm = str('rpm') === undefined ? undefined : parseInteger('rpm', str('rpm'));
      const parallel = str('parallel') === undefined ? undefined : parseInteger('parallel', str('parallel'));
      const balance = await billing.setPlan(str('account') as string, parsePlan(str('plan')), { rpm, parallel });
      out(`Plan ${balance.plan}: ${balance.limits.requests_per_minute} rpm, ${balance.limits.parallel_tasks} parallel tasks`, balance);
      return;
    }
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('cli failed:', error);
    process.exit(EXIT.failed);
  },
);
