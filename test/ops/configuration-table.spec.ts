import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ConfigurationRow,
  configurationRows,
  EnvReader,
  ProcessReading,
  readConfigurationTable,
  readServiceConfig,
  ReadContext,
  renderConfigurationTable,
} from '@gen/config';
import { readBillingSettings } from '@gen/billing';
import { readStandaloneConfig } from '@gen/standalone';
import { readWebhooksSettings } from '@gen/webhooks';
import { readGatewayConfig } from '../../apps/gateway/src/gateway.settings';
import { readGenerationServiceSettings } from '../../apps/generation/src/config/generation.settings';
import { readCliDatabaseSettings, readCliKeyWebhookSettings, readCliNatsSettings, readCliOutputBaseUrl } from '../../apps/cli/src/cli.settings';

const README = join(__dirname, '..', '..', 'README.md');

/** A key, so that standalone does not make one in a data folder while it is read here. */
const ENV = { WEBHOOK_SECRET_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') };

/** What one process reads at start-up, through the same functions its main calls. */
function reading(context: ReadContext['process'] | ReadContext, read: (env: EnvReader) => unknown): ProcessReading {
  const env = new EnvReader(ENV, context);
  read(env);
  return { process: env.context.process, variables: env.variablesRead() };
}

/** Every process, the gateway first (the README's order follows: shared variables, then each service's). */
const READINGS = [
  reading('gateway', (env) => readGatewayConfig(env)),
  reading('billing', (env) => [readServiceConfig(env), readBillingSettings(env)]),
  reading('generation', (env) => readGenerationServiceSettings(env, readServiceConfig(env).ops, 'generation-1')),
  reading('webhooks', (env) => [readServiceConfig(env), readWebhooksSettings(env)]),
  reading('standalone', (env) => readStandaloneConfig(env, ENV)),
  reading({ process: 'cli', mode: 'distributed' }, (env) => [readCliDatabaseSettings(env), readCliOutputBaseUrl(env), readCliKeyWebhookSettings(env), readCliNatsSettings(env)]),
];

const line = (row: ConfigurationRow) => renderConfigurationTable([row]).split('\n')[2];

/**
 * The README's configuration table is the declarations' (libs/config's readers, each service's
 * *.settings.ts), both ways: a variable added in code and not in the README fails here, and so
 * does a README row that no process reads. WRITE_CONFIGURATION_TABLE=1 rewrites the table from the
 * declarations first (then review the diff).
 */
describe("README: the configuration table and the services' declarations", () => {
  const declared = configurationRows(READINGS);
  if (process.env.WRITE_CONFIGURATION_TABLE === '1') {
    const text = readFileSync(README, 'utf8');
    const table = readConfigurationTable(text);
    writeFileSync(README, text.slice(0, table.start) + renderConfigurationTable(declared) + '\n' + text.slice(table.end));
  }
  const documented = readConfigurationTable(readFileSync(README, 'utf8')).rows;

  it('lists every variable a process reads, with its declared default, readers and meaning', () => {
    const wrong = declared.filter((row) => !documented.some((d) => line(d) === line(row)));
    // The rows to put in README.md's table (or run this spec with WRITE_CONFIGURATION_TABLE=1).
    expect(wrong.map(line)).toEqual([]);
  });

  it('lists no variable that no process reads', () => {
    const undeclared = documented.filter((row) => !declared.some((d) => d.variable === row.variable));
    expect(undeclared.map(line)).toEqual([]);
  });

  it('is in the order of the declarations, one row per variable', () => {
    expect(documented.map((row) => row.variable)).toEqual(declared.map((row) => row.variable));
  });

  it('comes from what each process really reads (spot checks)', () => {
    const gateway = READINGS[0].variables.map((v) => v.name);
    // Spot checks of the reading itself: the shared variables, the gateway's own, none of another service's.
    expect(gateway).toEqual(expect.arrayContaining(['DATABASE_URL', 'NATS_URL', 'PORT', 'SYNC_WAIT_MS', 'WEBHOOK_ALLOW_LIST', 'STORAGE_DIR']));
    expect(gateway).not.toEqual(expect.arrayContaining(['WORKER_CONCURRENCY']));
    expect(declared.find((row) => row.variable === 'DATABASE_URL')?.usedBy).toBe('all, cli');
    expect(declared.find((row) => row.variable === 'NATS_URL')?.usedBy).toBe('distributed services, cli');
    expect(declared.find((row) => row.variable === 'WORKER_CONCURRENCY')?.usedBy).toBe('standalone, generation');
  });
});
