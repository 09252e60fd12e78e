import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlanName } from '@gen/contracts';
import { loadStandaloneConfig, RunningStandalone, startStandalone, StandaloneOverrides } from '@gen/standalone';
import { freePort } from '@gen/persistence';
import { createTestDatabase, TestDatabase } from '@gen/testing';

export interface StandaloneHarness {
  running: RunningStandalone;
  url: string;
  database: TestDatabase;
  /** The data folder (outputs are stored under `outputs/`). */
  dataDir: string;
  /** Creates an account with a plan and credits and returns a live key for it. */
  account(plan?: PlanName, credits?: number): Promise<{ accountId: string; key: string; keyId: string }>;
  close(): Promise<void>;
}

/** Standalone mode on its own database and data folder, on a free port, engines without latency. */
export async function startStandaloneHarness(
  env: Record<string, string> = {},
  overrides: StandaloneOverrides = {},
): Promise<StandaloneHarness> {
  const database = await createTestDatabase('e2e');
  const dataDir = mkdtempSync(join(tmpdir(), 'gen-e2e-'));
  const port = await freePort();
  const config = loadStandaloneConfig({
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    ENGINE_LATENCY_SCALE: '0',
    // Tests reach the server from loopback, standing in for an ingress (dashboard specs vary X-Forwarded-For).
    TRUST_PROXY: '127.0.0.1',
    JOB_POLL_INTERVAL_MS: '100',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    ...env,
  });
  const running = await startStandalone(config, overrides);
  const url = running.url;
  return {
    running,
    url,
    database,
    dataDir,
    async account(plan: PlanName = 'pro', credits = 1000) {
      const account = await running.provisioning.createAccount(`acct-${Math.random().toString(36).slice(2, 8)}`, plan, credits);
      const key = await running.provisioning.createKey(account.accountId, 'test key');
      return { accountId: account.accountId, key: key.key, keyId: key.id };
    },
    async close() {
      await running.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
