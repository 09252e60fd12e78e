import { startDistributed } from '../support/distributed-harness';
import { walkingSkeleton } from '../support/scenarios/walking-skeleton';

/**
 * The walking-skeleton scenario (test/support/scenarios/walking-skeleton.ts) against the four apps as
 * separate processes over NATS/JetStream and a PostgreSQL server.
 */
walkingSkeleton('distributed', async () => {
  const h = await startDistributed();
  return {
    url: h.url,
    account: (plan, credits) => h.account(plan, credits),
    async revokeKey({ keyId }) {
      await h.query('UPDATE auth.api_keys SET revoked_at = now() WHERE id = $1', [keyId]);
    },
    query: (sql, params) => h.query(sql, params),
    close: () => h.close(),
  };
});
