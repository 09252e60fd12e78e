import 'reflect-metadata';
import { writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, describeError, stackOf } from '@gen/config';
import { EmbeddedPostgresError } from '@gen/persistence';
import { loadStandaloneConfig } from './standalone.config';
import { startStandalone } from './standalone';

/** The demo account's dashboard user (example.com is reserved for examples: no mail goes anywhere). */
const DEMO_EMAIL = 'demo@example.com';

/**
 * The first start's catalogue is the built-in demo engines: said plainly, with the one command that
 * serves real models instead (README, "Real models").
 */
const DEMO_MODELS_NOTE = [
  'The models listed now are DEMOS, not AI models: built-in engines that draw shapes, tones and a robotic',
  'voice from the prompt ("a red fox" gives coloured shapes), so the API can be tried without a provider.',
  'To serve real models (Replicate), run this once, then start again with your token set:',
  '  npm run cli -- models sync --file catalogues/replicate.json',
  '  REPLICATE_API_TOKEN=<your token> npm start',
  '(fal: catalogues/fal.json and FAL_KEY; OpenAI: catalogues/openai.json and OPENAI_API_KEY; docs/operations/catalogue.md)',
];

/** `npm start`: the whole service in one process, data in DATA_DIR (default .data/). */
async function main(): Promise<void> {
  const config = loadStandaloneConfig();
  const running = await startStandalone(config);
  mkdirSync(config.dataDir, { recursive: true });
  const runtimeFile = join(config.dataDir, 'runtime.json');
  writeFileSync(runtimeFile, JSON.stringify({ pid: process.pid, pgPort: running.embeddedPostgres?.port ?? null }));

  const base = config.publicBaseUrl;
  const lines = [
    '',
    `Generation Service (standalone) is running at ${base}`,
    `  API:       ${base}/api/v1`,
    `  Dashboard: ${base}/dashboard/  (sign up there to get an account and API keys)`,
  ];
  if ((await running.provisioning.countAccounts()) === 0) {
    // A demo account someone can also sign in to the dashboard with (API keys, webhook URL and secret).
    const account = await running.provisioning.createAccountWithSignIn('Demo account', DEMO_EMAIL, 'pro', config.demoCredits);
    if (!account) throw new Error(`${DEMO_EMAIL} already has an account, but no account exists`);
    const key = await running.provisioning.createKey(account.accountId, 'demo key');
    lines.push(
      '',
      `Created a demo account (plan pro, ${config.demoCredits} credits). Its API key and password are shown only this once:`,
      `API key: ${key.key}`,
      `Dashboard sign-in: ${base}/dashboard/sign-in  email ${account.email}  password ${account.password}`,
      '  (there: Settings, API keys, to set the key\'s webhook URL and get its signing secret)',
      '',
      'Try it:',
      `  curl -s ${base}/api/v1/models -H "Authorization: Bearer ${key.key}"`,
      `  curl -s ${base}/api/v1/generate -H "Authorization: Bearer ${key.key}" \\`,
      `       -H "Content-Type: application/json" \\`,
      `       -d '{"model":"pixel-flux-1","prompt":"a lighthouse at dusk","type":"TEXT_TO_IMAGE"}'`,
      '',
      ...DEMO_MODELS_NOTE,
    );
  } else {
    lines.push(
      '',
      'Existing data found in ' + config.dataDir + '; no demo key was created this time.',
      'Create a key with:  npm run cli -- keys create --account <account-id> --name "my key"',
      'List accounts with: npm run cli -- accounts list',
    );
  }
  process.stdout.write(lines.join('\n') + '\n\n');

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(JSON.stringify({ level: 'info', time: new Date().toISOString(), service: 'standalone', msg: `${signal} received: draining and shutting down` }) + '\n');
    running
      .stop()
      .then(() => rmSync(runtimeFile, { force: true }))
      .then(
        () => {
          process.stdout.write(JSON.stringify({ level: 'info', time: new Date().toISOString(), service: 'standalone', msg: 'stopped cleanly' }) + '\n');
          process.exit(0);
        },
        (error: unknown) => {
          console.error(`Failed to stop cleanly: ${describeError(error)}\n${stackOf(error)}`.trimEnd());
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  // A bad setting or a database that cannot start: one line naming the cause and the fix.
  if (error instanceof ConfigError) console.error(error.message);
  else if (error instanceof EmbeddedPostgresError) console.error(`Failed to start: ${error.message}`);
  else console.error(`Failed to start: ${describeError(error)}\n${stackOf(error)}`.trimEnd());
  process.exit(1);
});
