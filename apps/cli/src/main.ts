import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { billingDatabaseOptions, BillingModule, BillingService, KeyCapsService, openBillingDatabase } from '@gen/billing';
import { AccountChangedBroadcast, Broadcasts, JOB_STATUSES, JobStatus } from '@gen/contracts';
import { ConfigError, defaultsOf } from '@gen/config';
import { ConflictError, DomainError, ValidationError } from '@gen/errors';
import {
  ApiKeysService,
  AuditActor,
  AuditService,
  authDatabaseOptions,
  GATEWAY_VARIABLES,
  GatewayModule,
  GatewaySettings,
  KeyWebhooksService,
  LowBalanceAlertsService,
  openAuthDatabase,
  operatorActor,
  ProvisioningService,
  toKeyView,
  WebhookSecretKeyRing,
} from '@gen/gateway';
import {
  CatalogueAdminModule,
  CatalogueAdminService,
  generationDatabaseOptions,
  JobAdminModule,
  JobAdminService,
  JobInspection,
  ListedModel,
  ModelEntry,
  openGenerationDatabase,
} from '@gen/generation';
import { createDatabaseIfMissing, pgErrorCode, runPendingMigrations } from '@gen/persistence';
import { loadStandaloneConfig } from '@gen/standalone';
import { Broadcaster, InProcessBus, InProcessServer, TransportModule } from '@gen/transport';
import { DeliveriesAdminModule, DeliveriesAdminService, openWebhooksDatabase, webhooksDatabaseOptions } from '@gen/webhooks';
import { broadcastOverNats, relayBroadcastsToNats } from './cli-broadcast';
import { CliDatabase, redactedUrl, resolveCliDatabase } from './cli-database';
import { cliEnv, readCliDatabaseSettings, readCliKeyWebhookSettings, readCliOutputBaseUrl } from './cli.settings';
import { readFileSync } from 'node:fs';
import { checkIds, COMMANDS, EXIT, parseBoolean, parseCap, parseDuration, parseInteger, parseJsonObject, parsePlan, parseSince, usage } from './commands';

type Options = Record<string, string | boolean | undefined>;
import { setLowBalance } from './low-balance-command';

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

  const refuse = (code: string, message: string, exit: number) => {
    process.stderr.write(`Error (${code}): ${message}\n`);
    if (options.json) process.stdout.write(JSON.stringify({ error: { code, message } }, null, 2) + '\n');
    return exit;
  };
  try {
    checkIds(options);
    const where = readSettings(readCliDatabaseSettings);
    if (command === 'migrate' && options['create-database'] === true && where.databaseUrl) {
      const created = await createDatabaseIfMissing(where.databaseUrl);
      process.stderr.write(`${created ? 'Created' : 'Found'} the database of ${redactedUrl(where.databaseUrl)}.\n`);
    }
    const database = await resolveCliDatabase(where, { mayCreate: COMMANDS[command].mayCreateData === true });
    // Which data the command works on, on stderr (stdout stays the command's output, --json included).
    process.stderr.write(`${database.description}\n`);
    try {
      if (command === 'migrate') await migrate(database.url, out);
      else if (command.startsWith('jobs ')) await jobs(command, options, database.url, out);
      else if (command === 'deliveries retry') await retryDeliveries(options, database.url, out);
      else if (command.startsWith('models ')) await models(command, options, database.url, out);
      else await services(command, options, database, out);
      return EXIT.ok;
    } finally {
      if (database.embedded) await database.embedded.stop();
    }
  } catch (error) {
    if (error instanceof DomainError) return refuse(error.code, error.message, error.code === 'validation_error' ? EXIT.usage : EXIT.refused);
    if (error instanceof ConfigError) return refuse('validation_error', error.message, EXIT.usage);
    // PostgreSQL refused a value (a data exception or a constraint: SQLSTATE classes 22 and 23): the
    // input is wrong, not the system; say so without PostgreSQL's own wording.
    const sqlState = pgErrorCode(error);
    if (sqlState && /^2[23]/.test(sqlState)) {
      return refuse('validation_error', `The database refused a value of this command (SQLSTATE ${sqlState}); check the ids and values given.`, EXIT.refused);
    }
    process.stderr.write(`Failed: ${(error instanceof Error && error.message) || String(error ?? 'an unknown error (no details given)')}\n`);
    return EXIT.failed;
  }
}

/** Reads settings from the environment with one of cli.settings.ts' readers; a bad value is a ConfigError (exit 2). */
function readSettings<T>(reader: (env: ReturnType<typeof cliEnv>) => T): T {
  const env = cliEnv();
  const settings = reader(env);
  env.done();
  return settings;
}

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
  const cdnBaseUrl = readSettings(readCliOutputBaseUrl);
  const generation = await openGenerationDatabase(url, 2, 'verify');
  const billingDs = await openBillingDatabase(url, 2, 'verify').catch(async (error: unknown) => {
    await generation.destroy();
    throw error;
  });
  @Module({ imports: [JobAdminModule.register(generation, { cdnBaseUrl }), BillingModule.register(billingDs, {}, { outboxRelay: false })] })
  class JobsCliModule {}
  const app = await NestFactory.createApplicationContext(JobsCliModule, { logger: false, abortOnError: false });
  try {
    const admin = app.get(JobAdminService);
    const billing = app.get(BillingService);
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
    await app.close();
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
    inputs: parseJsonObject('inputs', str('inputs')),
    price_multipliers: str('price-multipliers')?.split(',').map((name) => name.trim()).filter((name) => name !== ''),
  };
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<ModelEntry>;
}

/** The model catalogue (generation's `models` table); every replica picks a change up within seconds. */
async function models(command: string, o: Options, url: string, out: Out): Promise<void> {
  const id = typeof o.id === 'string' ? o.id : '';
  const generation = await openGenerationDatabase(url, 2, 'verify');
  const app = await NestFactory.createApplicationContext(CatalogueAdminModule.register(generation), { logger: false, abortOnError: false });
  try {
    await modelsCommand(command, o, id, app.get(CatalogueAdminService), out);
  } finally {
    await app.close();
    await generation.destroy();
  }
  if (command !== 'models list') {
    // After the commit: every replica reads the catalogue again (the database announces it too).
    const problem = await broadcastOverNats(process.env, Broadcasts.catalogueChanged, {});
    if (problem) process.stderr.write(`The running services were not told over NATS (${problem}); the database's notice reaches them.\n`);
  }
}

async function modelsCommand(command: string, o: Options, id: string, catalogue: CatalogueAdminService, out: Out): Promise<void> {
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
      if (Object.keys(changes).length === 0) throw new ValidationError('Nothing to change: give at least one of --name, --type, --credits, --minimum, --plan, --sync, --engine, --inputs, --price-multipliers');
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

/** Queues redeliveries of failed webhooks; the running webhooks service sends them. */
async function retryDeliveries(o: Options, url: string, out: Out): Promise<void> {
  const str = (name: string) => (typeof o[name] === 'string' ? (o[name] as string) : undefined);
  const since = parseSince(str('since'));
  const limit = parseInteger('limit', str('limit'), 500);
  if (limit < 1 || limit > 10_000) throw new ValidationError('--limit must be between 1 and 10000');
  const webhooks = await openWebhooksDatabase(url, 2, 'verify');
  const app = await NestFactory.createApplicationContext(DeliveriesAdminModule.register(webhooks), { logger: false, abortOnError: false });
  try {
    // To the generation's own destination, as a customer's redeliver: nothing to ask the keys.
    const outcomes = await app.get(DeliveriesAdminService).retryFailedSince(since, {
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
    await app.close();
    await webhooks.destroy();
  }
}

/** Accounts, keys, credits and plans: through the gateway's and billing's own services. */
async function services(command: string, options: Options, database: CliDatabase, out: Out): Promise<void> {
  const webhooks = command === 'keys secret' || command === 'keys set-webhook-url' ? keyWebhookSettings(database) : null;
  const url = database.url;
  const [auth, billing] = await Promise.all([openAuthDatabase(url, 2), openBillingDatabase(url, 2)]);
  const bus = new InProcessBus();
  @Module({
    imports: [
      TransportModule.forRoot({ kind: 'in-process', bus }),
      GatewayModule.register({
        dataSource: auth,
        settings: webhooks ? { ...GATEWAY_CLI_SETTINGS, webhookPolicy: webhooks.webhookPolicy } : GATEWAY_CLI_SETTINGS,
        secretKeys: webhooks?.secretKeys,
      }),
      BillingModule.register(billing, {}, { outboxRelay: false }),
    ],
  })
  class CliModule {}
  const app = await NestFactory.createMicroservice(CliModule, { strategy: new InProcessServer(bus), logger: false });
  await app.listen();
  try {
    // A deployment's gateways hear of revoked keys and changed plans over NATS (when configured).
    const relay = database.mode === 'server' ? relayBroadcastsToNats(process.env, bus.broadcaster) : null;
    try {
      await run(
        command,
        options,
        app.get(ProvisioningService),
        app.get(ApiKeysService),
        app.get(KeyWebhooksService),
        app.get(BillingService),
        app.get(KeyCapsService),
        app.get(AuditService),
        app.get(Broadcaster),
        app.get(LowBalanceAlertsService),
        out,
      );
    } finally {
      const problem = await relay?.settle();
      if (problem) {
        process.stderr.write(
          `The running gateways were not told over NATS (${problem}); they see this change within ` +
            'their API key cache TTL (10 s by default) or plan cache (5 s).\n',
        );
      }
    }
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
  keyWebhooks: KeyWebhooksService,
  billing: BillingService,
  caps: KeyCapsService,
  audit: AuditService,
  broadcaster: Broadcaster,
  lowBalance: LowBalanceAlertsService,
  out: Out,
): Promise<void> {
  const str = (name: string) => (typeof o[name] === 'string' ? (o[name] as string) : undefined);
  // Every change below is recorded in the account's audit log as the operator's (the OS user running the CLI).
  const actor: AuditActor = operatorActor();
  switch (command) {
    case 'accounts create': {
      const plan = parsePlan(str('plan'), 'free');
      const credits = parseInteger('credits', str('credits'), 0);
      const email = str('email');
      let signIn: { email: string; password: string } | null = null;
      let accountId: string;
      if (email !== undefined) {
        const created = await provisioning.createAccountWithSignIn(str('name') as string, email, plan, credits);
        if (!created) throw new ConflictError(`${email.trim()} already has a dashboard account.`);
        ({ accountId } = created);
        signIn = { email: created.email, password: created.password };
      } else {
        ({ accountId } = await provisioning.createAccount(str('name') as string, plan, credits));
      }
      const balance = await billing.balance(accountId);
      const key = await keys.create(accountId, str('key-name') ?? 'default');
      await audit.record({ accountId, actor, action: 'account.created', target: accountId, details: { name: (str('name') as string).trim(), plan, credits, email: signIn?.email ?? null } });
      await audit.record({ accountId, actor, action: 'key.created', target: key.id, details: { name: key.name, scopes: key.scopes } });
      out(
        [
          `Account ${accountId} (${(str('name') as string).trim()}): plan ${balance.plan}, ${balance.available} credits`,
          `API key (shown only now): ${key.key}`,
          ...(signIn ? [`Dashboard sign-in (password shown only now): ${signIn.email}  ${signIn.password}`] : []),
        ].join('\n'),
        { account_id: accountId, name: (str('name') as string).trim(), balance: withoutAccountId(balance), api_key: key, dashboard: signIn },
      );
      return;
    }
    case 'accounts list': {
      const accounts = await provisioning.listAccounts();
      const rows = await Promise.all(
        accounts.map(async (a) => ({ id: a.id, name: a.name, created_at: a.createdAt, ...withoutAccountId(await billing.balance(a.id)) })),
      );
      out(rows.map((r) => `${r.id}  ${r.plan.padEnd(10)} available ${r.available}  held ${r.held}  ${r.name}`).join('\n') || '(no accounts)', rows);
      return;
    }
    case 'keys create': {
      const scopes = (str('scopes') ?? 'generate,read').split(',').map((s) => s.trim()) as Array<'generate' | 'read'>;
      const key = await keys.create(str('account') as string, str('name') as string, scopes);
      await audit.record({ accountId: str('account') as string, actor, action: 'key.created', target: key.id, details: { name: key.name, scopes: key.scopes } });
      out(`Key ${key.id} (${key.name}, scopes ${key.scopes.join(',')})\nAPI key (shown only now): ${key.key}`, key);
      return;
    }
    case 'keys list': {
      await provisioning.requireAccount(str('account') as string);
      const list = (await keys.list(str('account') as string)).map(toKeyView);
      out(
        list
          .map(
            (k) =>
              `${k.id}  ${k.prefix}...${k.last4}  ${k.status.padEnd(7)} ${k.name}` +
              `\n    webhook: ${k.webhook_url ?? 'none'}; signing secret: ${k.has_webhook_secret ? 'yes' : 'none'}`,
          )
          .join('\n') || '(no keys)',
        list,
      );
      return;
    }
    case 'keys secret': {
      const overlap = parseDuration('overlap', str('overlap'));
      const before = await keys.get(str('account') as string, str('key') as string);
      const { key, webhookSecret } = await keyWebhooks.renewSecret(str('account') as string, str('key') as string, overlap);
      const view = toKeyView(key);
      const action = overlap !== undefined ? 'key.secret_rotated' : before.webhookSecret ? 'key.secret_renewed' : 'key.secret_generated';
      const details = overlap !== undefined ? { name: key.name, overlap_seconds: overlap } : { name: key.name };
      await audit.record({ accountId: key.accountId, actor, action, target: key.id, details });
      out(
        [
          view.previous_secret_until
            ? `Key ${view.id} (${view.name}): new webhook signing secret, shown only now (deliveries carry signatures with both secrets until ${view.previous_secret_until}, then with this one only):`
            : `Key ${view.id} (${view.name}): webhook signing secret, shown only now (signatures with any earlier secret fail from now on):`,
          webhookSecret as string,
        ].join('\n'),
        { key: view, webhook_secret: webhookSecret },
      );
      return;
    }
    case 'keys set-webhook-scheme': {
      const key = await keyWebhooks.setScheme(str('account') as string, str('key') as string, str('scheme') as string);
      const view = toKeyView(key);
      await audit.record({ accountId: key.accountId, actor, action: 'key.webhook_scheme_set', target: key.id, details: { name: key.name, scheme: view.webhook_scheme } });
      out(
        view.webhook_scheme === 'standard'
          ? `Key ${view.id} (${view.name}): webhooks signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature), with the same secret`
          : `Key ${view.id} (${view.name}): webhooks signed with the X-Service-* headers`,
        view,
      );
      return;
    }
    case 'keys set-webhook-url': {
      const { key, webhookSecret } = await keyWebhooks.setUrl(str('account') as string, str('key') as string, str('url') ?? null);
      const view = toKeyView(key);
      await audit.record({ accountId: key.accountId, actor, action: 'key.webhook_url_set', target: key.id, details: { name: key.name, webhook_url: key.webhookUrl } });
      if (webhookSecret) await audit.record({ accountId: key.accountId, actor, action: 'key.secret_generated', target: key.id, details: { name: key.name } });
      out(
        [
          view.webhook_url ? `Key ${view.id} (${view.name}): default webhook URL ${view.webhook_url}` : `Key ${view.id} (${view.name}): no default webhook URL`,
          ...(webhookSecret
            ? ['Its webhook signing secret was generated, shown only now:', webhookSecret]
            : view.has_webhook_secret
              ? ['It keeps its signing secret (keys secret renews it).']
              : []),
        ].join('\n'),
        { key: view, webhook_secret: webhookSecret },
      );
      return;
    }
    case 'keys revoke': {
      await keys.revoke(str('account') as string, str('key') as string);
      const key = await keys.get(str('account') as string, str('key') as string);
      await audit.record({ accountId: key.accountId, actor, action: 'key.revoked', target: key.id, details: { name: key.name } });
      out('Revoked.', { revoked: true });
      return;
    }
    case 'accounts set-low-balance':
      return setLowBalance(o, lowBalance, out);
    case 'keys set-cap': {
      const [perDay, perMonth] = [parseCap('per-day', str('per-day')), parseCap('per-month', str('per-month'))];
      if (perDay === undefined && perMonth === undefined) throw new ValidationError('Nothing to change: give --per-day, --per-month or both (none removes a cap)');
      const key = await keys.get(str('account') as string, str('key') as string); // not found unless the account's key
      const view = await caps.set({ accountId: key.accountId, keyId: key.id, perDay, perMonth });
      await audit.record({ accountId: key.accountId, actor, action: 'key.caps_set', target: key.id, details: { name: key.name, per_day: view.per_day, per_month: view.per_month } });
      const cap = (value: number | null, spent: number, period: string) => `${value === null ? 'no cap' : `${value} credits`} per ${period} (spent ${spent})`;
      out(
        `Key ${key.id} (${key.name}): ${cap(view.per_day, view.spent_today, 'day')}; ${cap(view.per_month, view.spent_this_month, 'month')}; UTC`,
        view,
      );
      return;
    }
    case 'audit list': {
      await provisioning.requireAccount(str('account') as string);
      const limit = parseInteger('limit', str('limit'), 50);
      if (limit < 1 || limit > 1000) throw new ValidationError('--limit must be between 1 and 1000');
      const page = await audit.page(str('account') as string, { actor: str('actor'), action: str('action'), limit });
      out(
        page.data
          .map((e) => `${e.at}  ${e.action.padEnd(24)} ${e.actor_kind === 'operator' ? `operator ${e.actor}` : e.actor}${e.ip ? ` (${e.ip})` : ''}${e.target ? `  on ${e.target}` : ''}`)
          .join('\n') || '(no entries)',
        page.data,
      );
      return;
    }
    case 'credits grant': {
      const amount = parseInteger('amount', str('amount'));
      const note = str('note') ?? 'operator grant';
      const available = await billing.adjust(str('account') as string, amount, note);
      await audit.record({ accountId: str('account') as string, actor, action: 'account.credits_changed', target: str('account') as string, details: { amount, note, available } });
      out(`Available credits: ${available}`, { available });
      return;
    }
    case 'plans set': {
      const rpm = str('rpm') === undefined ? undefined : parseInteger('rpm', str('rpm'));
      const parallel = str('parallel') === undefined ? undefined : parseInteger('parallel', str('parallel'));
      const balance = await billing.setPlan(str('account') as string, parsePlan(str('plan')), { rpm, parallel });
      await broadcaster.publishAndFlush(Broadcasts.accountChanged, { accountId: str('account') as string } satisfies AccountChangedBroadcast);
      await audit.record({
        accountId: str('account') as string,
        actor,
        action: 'account.plan_changed',
        target: str('account') as string,
        details: { plan: balance.plan, requests_per_minute: balance.limits.requests_per_minute, parallel_tasks: balance.limits.parallel_tasks },
      });
      out(`Plan ${balance.plan}: ${balance.limits.requests_per_minute} rpm, ${balance.limits.parallel_tasks} parallel tasks`, balance);
      return;
    }
  }
}

/** Billing's balance as the CLI shows it: the account is already named by `id` (or `account_id`). */
function withoutAccountId<T extends { accountId: string }>(balance: T): Omit<T, 'accountId'> {
  const { accountId: _accountId, ...rest } = balance;
  return rest;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('cli failed:', error);
    process.exit(EXIT.failed);
  },
);
