import { Pool } from 'pg';
import { ApiKeysService } from '@gen/gateway';
import { walkingSkeleton } from '../support/scenarios/walking-skeleton';
import { startStandaloneHarness } from '../support/standalone-harness';

/** The walking-skeleton scenario (test/support/scenarios/walking-skeleton.ts) against standalone, in process. */
walkingSkeleton('standalone', async () => {
  const h = await startStandaloneHarness();
  const pool = new Pool({ connectionString: h.database.url, max: 2 });
  return {
    url: h.url,
    account: (plan, credits) => h.account(plan, credits),
    revokeKey: ({ accountId, keyId }) => h.running.app.get(ApiKeysService).revoke(accountId, keyId),
    query: async <T>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[],
    async close() {
      await pool.end();
      await h.close();
    },
  };
});
