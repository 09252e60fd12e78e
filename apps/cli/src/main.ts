import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { BillingModule, BillingService, openBillingDatabase } from '@gen/billing';
import { DomainError } from '@gen/errors';
import { ApiKeysService, GatewayModule, openAuthDatabase, ProvisioningService } from '@gen/gateway';
import { InProcessBus, InProcessServer, TransportModule } from '@gen/transport';
import { resolveCliDatabase } from './cli-database';
import { COMMANDS, parseInteger, parsePlan, usage } from './commands';

type Options = Record<string, string | boolean | undefined>;
type Out = (human: string, data: unknown) => void;

/** The operator CLI: accounts, keys, credits and plans, straight against the services' own modules. */
async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: false,
    options: {
      help: { type: 'boolean', short: 'h' },
      json: { type: 'boolean' },
      ...Object.fromEntries(
        Object.values(COMMANDS).flatMap((c) => Object.keys(c.options).map((name) => [name, { type: 'string' as const }])),
      ),
    },
  });
  const command = positionals.slice(0, 2).join(' ');
  if (values.help || !COMMANDS[command]) {
    process.stdout.write(usage() + '\n');
    return values.help ? 0 : 2;
  }
  const options = values as Options;
  for (const [name, option] of Object.entries(COMMANDS[command].options)) {
    if (option.required && typeof options[name] !== 'string') {
      process.stderr.write(`Missing --${name}.\n\n${usage()}\n`);
      return 2;
    }
  }
  const out: Out = (human, data) =>
    process.stdout.write((options.json ? JSON.stringify(data, null, 2) : human) + '\n');

  const database = await resolveCliDatabase();
  const [auth, billing] = await Promise.all([openAuthDatabase(database.url, 2), openBillingDatabase(database.url, 2)]);
  const bus = new InProcessBus();
  @Module({
    imports: [
      TransportModule.forRoot({ kind: 'in-process', bus }),
      GatewayModule.register({
        dataSource: auth,
        settings: {
          publicBaseUrl: '',
          syncWaitMs: 0,
          bodyLimitBytes: 0,
          outputsDir: null,
          rpcTimeoutMs: 10_000,
          webhookPolicy: { allowHttp: false, allowPrivate: false, allowList: [] },
        },
      }),
      BillingModule.register(billing),
    ],
  })
  class CliModule {}
  const app = await NestFactory.createMicroservice(CliModule, { strategy: new InProcessServer(bus), logger: false });
  await app.listen();
  try {
    await run(command, options, app.get(ProvisioningService), app.get(ApiKeysService), app.get(BillingService), out);
    return 0;
  } catch (error) {
    if (error instanceof DomainError) {
      process.stderr.write(`Error (${error.code}): ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await app.close();
    await Promise.allSettled([auth.destroy(), billing.destroy()]);
    if (database.embedded) await database.embedded.stop();
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
    process.exit(1);
  },
);
