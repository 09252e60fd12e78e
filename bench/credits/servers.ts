import 'reflect-metadata';
import { rmSync } from 'node:fs';
import Fastify from 'fastify';
import { Pool } from 'pg';
import { PNG } from 'pngjs';
import { BillingService } from '@gen/billing';
import type { Engine } from '@gen/generation';
import { loadStandaloneConfig, startStandalone } from '@gen/standalone';
import { scratchFolder } from '../support/scratch';

/**
 * The servers the benchmark drives over HTTP, each in its own process (started by main.ts):
 *   floor <database-url>        a bare Fastify route doing one UPDATE ... RETURNING
 *   standalone <database-url>   the whole service, with instant image and audio engines
 * Prints one JSON line ({"url", ...}) once listening; stops on SIGTERM.
 */
async function floor(databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const pool = new Pool({ connectionString: databaseUrl, max: 20 });
  const app = Fastify({ logger: false });
  app.post('/debit', async () => {
    const { rows } = await pool.query<{ available: string }>(
      `UPDATE bench_floor SET available = available - 1 WHERE id = 1 AND available >= 1 RETURNING available`,
    );
    return { available: Number(rows[0].available) };
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    stop: async () => {
      await app.close();
      await pool.end();
    },
  };
}

/** Engines that answer at once (a 1x1 PNG, a header-only WAV): what is left is the service's own cost. */
function instantEngines(): Record<string, Engine> {
  const png = PNG.sync.write(new PNG({ width: 1, height: 1 }));
  const wav = Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x22\x56\x00\x00\x44\xac\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00', 'latin1');
  return {
    image: { name: 'image', generate: async () => [{ data: png, contentType: 'image/png', extension: 'png' }] },
    audio: { name: 'audio', generate: async () => [{ data: wav, contentType: 'audio/wav', extension: 'wav' }] },
  };
}

async function standalone(databaseUrl: string): Promise<{ url: string; key: string; stop(): Promise<void> }> {
  const dataDir = scratchFolder('bench-credits-');
  const config = loadStandaloneConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    ENGINE_LATENCY_SCALE: '0',
    WORKER_CONCURRENCY: '64',
    JOB_POLL_INTERVAL_MS: '100',
  });
  const running = await startStandalone(config, { engines: instantEngines(), logger: false });
  // Enterprise, with limits no benchmark reaches: the rate limiter and the slots still run on every request.
  const account = await running.provisioning.createAccount('bench', 'enterprise', 1_000_000_000);
  await running.app.get(BillingService).setPlan(account.accountId, 'enterprise', { rpm: 100_000_000, parallel: 100_000 });
  const key = await running.provisioning.createKey(account.accountId, 'bench');
  return {
    url: running.url,
    key: key.key,
    stop: async () => {
      await running.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const [kind, databaseUrl] = process.argv.slice(2);
  if (!databaseUrl || (kind !== 'floor' && kind !== 'standalone')) {
    throw new Error('usage: servers.js floor|standalone <database-url>');
  }
  const server = kind === 'floor' ? await floor(databaseUrl) : await standalone(databaseUrl);
  const { stop, ...ready } = server;
  process.stdout.write(JSON.stringify(ready) + '\n');
  process.once('SIGTERM', () => {
    stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench server failed: ${String(error)}\n`);
  process.exit(1);
});
