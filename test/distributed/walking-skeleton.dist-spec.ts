import { runCliWith } from '../support/cli';
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
    // As an operator would: the CLI tells the gateways over NATS (they verify keys from memory).
    async revokeKey({ accountId, keyId }) {
      const env = { DATABASE_URL: h.database.url, NATS_URL: process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222', NATS_SUBJECT_PREFIX: h.subjectPrefix };
      expect(runCliWith(env, 'keys', 'revoke', '--account', accountId, '--key', keyId).code).toBe(0);
    },
    query: (sql, params) => h.query(sql, params),
    close: () => h.close(),
  };
});
