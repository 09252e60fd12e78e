import { randomUUID } from 'node:crypto';
import { BillingService } from '@gen/billing';
import { AddBatchLinesReply, BalanceReply, BatchFinishedEvent, BatchLinePayload, BatchLinesReply, BatchView, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import type { StandaloneHarness } from './standalone-harness';
import { until } from './until';

/** An account of a batch test: its key and its parallel limit (the enterprise plan's, set by the test). */
export interface BatchAccount {
  accountId: string;
  key: string;
  keyId: string;
  parallel: number;
}

/**
 * The generation.batch.* messages as the gateway sends them, and the rows and balances a test of the
 * generation side of batches reads, against a standalone harness (read at each call: the test file's
 * `beforeAll` starts it).
 */
export function batchMessages(harness: () => StandaloneHarness) {
  const sql = <T>(query: string, params: unknown[] = []) => harness().running.databases.generation.query(query, params) as Promise<T[]>;
  const ask = <T>(subject: string, payload: unknown) => harness().running.app.get(RpcClient).request<T>(subject, payload);

  async function account(parallel: number, credits = 1000): Promise<BatchAccount> {
    const created = await harness().account('pro', credits);
    await harness().running.app.get(BillingService).setPlan(created.accountId, 'enterprise', { rpm: 100_000, parallel });
    return { ...created, parallel };
  }

  const line = (n: number, model = 'quick-1', credits = 3): BatchLinePayload => ({
    line: n,
    customId: `req-${n}`,
    model,
    prompt: `line ${n}`,
    type: 'TEXT_TO_AUDIO',
    input: {},
    metadata: { n: String(n) },
    credits,
    minimumCredits: credits,
    webhookUrl: null,
  });

  async function create(a: BatchAccount, total: number, options: { windowSeconds?: number } = {}): Promise<string> {
    const batchId = randomUUID();
    await ask<AddBatchLinesReply>(Subjects.generationBatchCreate, {
      batchId,
      accountId: a.accountId,
      apiKeyId: a.keyId,
      plan: 'enterprise',
      parallelLimit: a.parallel,
      completionWindow: '24h',
      completionWindowSeconds: options.windowSeconds ?? 86_400,
      webhookUrl: 'https://hooks.example.com/batches',
      metadata: { job: 'test' },
      totalLines: total,
    });
    return batchId;
  }
  const addLines = (a: BatchAccount, batchId: string, lines: BatchLinePayload[], invalid: unknown[] = []) =>
    ask<AddBatchLinesReply>(Subjects.generationBatchLines, { batchId, accountId: a.accountId, lines, invalid });
  const seal = (a: BatchAccount, batchId: string) => ask<BatchView>(Subjects.generationBatchSeal, { batchId, accountId: a.accountId });
  const get = (a: BatchAccount, batchId: string) => ask<BatchView>(Subjects.generationBatchGet, { batchId, accountId: a.accountId });
  const cancel = (a: BatchAccount, batchId: string) => ask<BatchView>(Subjects.generationBatchCancel, { batchId, accountId: a.accountId });
  const page = (a: BatchAccount, batchId: string, file: 'results' | 'errors', afterLine = 0, limit = 1000) =>
    ask<BatchLinesReply>(Subjects.generationBatchResults, { batchId, accountId: a.accountId, file, afterLine, limit });
  const balance = (a: BatchAccount) => ask<BalanceReply>(Subjects.billingBalance, { accountId: a.accountId });
  const ended = (a: BatchAccount, batchId: string) =>
    until(`batch ${batchId} ended`, async () => {
      const view = await get(a, batchId);
      return ['completed', 'canceled', 'expired'].includes(view.status) ? view : undefined;
    });
  const settled = (a: BatchAccount) => until('holds settled', async () => ((await balance(a)).held === 0 ? balance(a) : undefined));
  const events = (batchId: string) =>
    sql<{ payload: BatchFinishedEvent }>(`SELECT payload FROM generation.outbox WHERE pattern = 'batch.completed' AND payload->'batch'->>'id' = $1`, [batchId]);
  /** The batch's jobs by state, from its lines. */
  const batchJobs = (batchId: string) =>
    sql<{ line: number; id: string; status: string }>(
      `SELECT l.line, j.id, j.status FROM generation.batch_lines l JOIN generation.jobs j ON j.id = l.job_id WHERE l.batch_id = $1 ORDER BY l.line`,
      [batchId],
    );

  return { sql, ask, account, line, create, addLines, seal, get, cancel, page, balance, ended, settled, events, batchJobs };
}
