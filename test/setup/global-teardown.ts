import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const pg = (globalThis as { __GEN_TEST_PG__?: { stop(): Promise<void> } }).__GEN_TEST_PG__;
  if (pg) await pg.stop();
  if (process.env.TEST_PG_DATA_DIR) rmSync(process.env.TEST_PG_DATA_DIR, { recursive: true, force: true });
}
