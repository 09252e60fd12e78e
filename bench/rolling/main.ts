import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { runBenchmark } from '../support/cleanup';
import { table } from '../support/markdown';
import { ROOT } from '../support/processes';
import { benchServers, positiveInteger } from '../support/settings';
import { AppName, ROLLOUT_ORDER, RollingResult, runRollingUpdate } from './rolling-update';

/** The two orders the upgrade is measured in (any order must work: docs/operations/upgrade.md). */
const ORDERS: Record<string, readonly AppName[]> = {
  'gateway first': ['gateway', 'billing', 'generation', 'webhooks'],
  'generation first': ['generation', 'billing', 'webhooks', 'gateway'],
};

/** Each service's previous release, built by tools/compat/previous-release.mjs (release/releases.json). */
function previousReleases(): Record<AppName, { version: string; commit: string; folder: string }> {
  const json = execFileSync(process.execPath, [join(ROOT, 'tools', 'compat', 'previous-release.mjs'), '--json'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(json) as Record<AppName, { version: string; commit: string; folder: string }>;
}

/**
 * `npm run bench:rolling`: a simulated Kubernetes rolling update (two replicas each; start the new
 * process, wait until it is ready, SIGTERM the old one) under steady synchronous and asynchronous
 * submits with signed webhooks, and what the clients saw: answers outside 2xx, lost jobs, credits,
 * webhooks. By default from each service's previous release (release/releases.json) to this build,
 * one service at a time, in two orders (gateway first; generation first); BENCH_ROLLING=same rolls
 * this build onto itself in the usual order. BENCH_CLIENTS (default 8) client loops; BENCH_SETTLE_MS
 * (default 3000) of load before and after; BENCH_MAX_SURGE (1, as k8s/ sets it, or 2).
 */
async function main(): Promise<void> {
  const clients = positiveInteger('BENCH_CLIENTS', 8);
  const settleMs = positiveInteger('BENCH_SETTLE_MS', 3_000);
  const maxSurge = positiveInteger('BENCH_MAX_SURGE', 1) === 2 ? 2 : 1;
  const crossVersion = process.env.BENCH_ROLLING !== 'same';
  const releases = crossVersion ? previousReleases() : undefined;
  const from = releases ? (Object.fromEntries(Object.entries(releases).map(([app, r]) => [app, r.folder])) as Record<AppName, string>) : undefined;
  const runs: Array<[string, RollingResult]> = [];
  for (const [name, order] of crossVersion ? Object.entries(ORDERS) : [['same build', ROLLOUT_ORDER] as const]) {
    process.stderr.write(`\n== ${name}: ${order.join(', ')} ==\n`);
    const result = await runRollingUpdate({ servers: benchServers(), clients, settleMs, maxSurge, from, order, log: (line) => process.stderr.write(`${line}\n`) });
    runs.push([`${name} (${order.join(' → ')})`, result]);
  }
  const fromText = releases
    ? `from ${Object.entries(releases).map(([app, r]) => `${app} ${r.version} (${r.commit.slice(0, 7)})`).join(', ')} to this build`
    : 'this build onto itself';
  process.stdout.write(
    `\nRolling update ${fromText}, 2 replicas each, maxSurge ${maxSurge}, under ${clients} clients (sync and async submits, signed webhooks).\n` +
      `Machine: ${cpus().length} cores, load average ${loadavg()[0].toFixed(2)} at the end. Node ${process.version}.\n\n`,
  );
  const rows = runs.map(([name, r]) => [
    name,
    String(Object.values(r.statuses).reduce((a, b) => a + b, 0)),
    JSON.stringify(r.statuses),
    String(r.errors),
    `${r.accepted} (${r.acceptedAsync} async)`,
    String(r.lost),
    String(r.failed),
    String(r.creditsDifference),
    String(r.creditsHeld),
    `${r.webhooksMissing} / ${r.badSignatures}`,
    `${(r.durationMs / 1000).toFixed(1)} s`,
  ]);
  const header = ['rollout', 'requests', 'by status', 'outside 2xx', 'jobs accepted', 'lost', 'failed', 'credits: charged - records', 'held after', 'webhooks missing / bad signature', 'duration'];
  process.stdout.write(table(header, rows) + '\n');
  for (const [name, r] of runs) if (r.errorSamples.length > 0) process.stdout.write(`\n${name}, first errors:\n${r.errorSamples.map((e) => `- ${e}`).join('\n')}\n`);
}

runBenchmark('bench:rolling', 1_500, main);
