import 'reflect-metadata';
import { cpus, loadavg } from 'node:os';
import { runBenchmark } from '../support/cleanup';
import { table } from '../support/markdown';
import { benchServers, positiveInteger } from '../support/settings';
import { ROLLOUT_ORDER, runRollingUpdate } from './rolling-update';

/**
 * `npm run bench:rolling`: a simulated Kubernetes rolling update of every Deployment (two replicas
 * each; start the new process, wait until it is ready, SIGTERM the old one) under steady load, and
 * what the clients saw: errors, lost jobs, credits. BENCH_CLIENTS (default 8) client loops;
 * BENCH_SETTLE_MS (default 3000) of load before and after the rollout; BENCH_MAX_SURGE (1, the
 * default, as the manifests in k8s/ set it: one new process at a time; or 2: both at once).
 */
async function main(): Promise<void> {
  const clients = positiveInteger('BENCH_CLIENTS', 8);
  const settleMs = positiveInteger('BENCH_SETTLE_MS', 3_000);
  const maxSurge = positiveInteger('BENCH_MAX_SURGE', 1) === 2 ? 2 : 1;
  const result = await runRollingUpdate({
    servers: benchServers(),
    clients,
    settleMs,
    maxSurge,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(
    `\nRolling update of ${ROLLOUT_ORDER.join(', ')} (2 replicas each, ${result.replaced} processes replaced, maxSurge ${maxSurge}) under ${clients} clients, ` +
      `${(result.durationMs / 1000).toFixed(1)} s.\nMachine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(2)} at the end. Node ${process.version}.\n\n`,
  );
  const requests = Object.values(result.statuses).reduce((a, b) => a + b, 0);
  process.stdout.write(
    table(
      ['requests', 'by status', 'errors', 'jobs accepted', 'lost', 'failed', 'credits: charged - records', 'credits held after'],
      [[String(requests), JSON.stringify(result.statuses), String(result.errors), String(result.accepted), String(result.lost), String(result.failed), String(result.creditsDifference), String(result.creditsHeld)]],
    ) + '\n',
  );
  if (result.errorSamples.length > 0) process.stdout.write(`\nFirst errors:\n${result.errorSamples.map((e) => `- ${e}`).join('\n')}\n`);
}

runBenchmark('bench:rolling', 900, main);
