import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeReplicate } from '@gen/testing';
import { seedJobs, syncGenerateOutcome, syncGenerateRequest } from '../support/api-requests';
import { runBenchmark } from '../support/cleanup';
import { idleCpuPerSecond } from '../support/cpu';
import { commitMeasured, coreCount, loadAverage } from '../support/machine';
import { table } from '../support/markdown';
import { RunningMode, startDistributedMode, startStandaloneMode } from '../support/modes';
import { ROOT, sleep } from '../support/processes';
import { bindToFake, fakeReplicateEnv } from '../support/provider-jobs';
import { benchServers, positiveInteger } from '../support/settings';
import { measureProviderJobs, measureRoute, type ProviderJobsRun, type RouteRun } from './measure';
import { startReferenceServer } from './reference-server';
import { Budgets, judge, judgeRoute, machineFactor, Measurement } from './verdict';

/**
 * `npm run bench:guard` (bench/README.md; a step of .ci/run): the hot routes' CPU per request, every
 * service process counted, standalone and distributed, against bench/budgets.json. Exits 1 when a
 * route costs more than 1.5 times its budget, naming the route and by how much. A fixed number of
 * requests per route, so a busy machine makes it slower, not wrong; a route over its limit is
 * measured again (up to ATTEMPTS in all) and judged on its cheapest run, because contention only
 * ever adds CPU (cache misses, preemption), never takes it away.
 */
const servers = benchServers();
const CONNECTIONS = 32;
const WORKERS = 64;
const ACCOUNTS = 2;
const ATTEMPTS = 3;
const GET_REQUESTS = positiveInteger('BENCH_GUARD_GET_REQUESTS', 4_000);
const POST_REQUESTS = positiveInteger('BENCH_GUARD_POST_REQUESTS', 1_500);
const PROVIDER_JOBS = positiveInteger('BENCH_GUARD_PROVIDER_JOBS', 1_000);
/** As long as bench:providers-scale's predictions: a job is submitted, checked about three times, collected. */
const PREDICTION_MS = 3_000;
const FAKE_TOKEN = 'r8_bench-guard';
const REFERENCE_REQUESTS = 10_000;
const LIMIT_SECONDS = 600;

export const ROUTES = {
  get: 'GET /api/v1/generations/{id}',
  post: 'POST /api/v1/generate (sync, instant engine)',
  providerJob: 'provider job (async submit to final, Replicate fake, parked)',
} as const;

const PROVIDER_RUN: ProviderJobsRun = { model: 'motion-lite-1', type: 'TEXT_TO_VIDEO', connections: CONNECTIONS, warmup: 300, jobs: PROVIDER_JOBS };

const started = performance.now();
const progress = (line: string) => process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(1)} s] ${line}\n`);

function routeRuns(mode: RunningMode, jobs: string[][]): Array<{ route: string; run: RouteRun }> {
  const key = (lane: number) => mode.keys[lane % mode.keys.length];
  const job = (lane: number) => jobs[lane % jobs.length][Math.floor(lane / jobs.length) % jobs[0].length];
  return [
    {
      route: ROUTES.get,
      run: { connections: CONNECTIONS, warmup: 1_000, requests: GET_REQUESTS, request: (lane) => ({ method: 'GET', path: `/api/v1/generations/${job(lane)}`, headers: { authorization: `Bearer ${key(lane)}` } }) },
    },
    { route: ROUTES.post, run: { connections: CONNECTIONS, warmup: 300, requests: POST_REQUESTS, request: (lane) => syncGenerateRequest(key(lane)), outcome: syncGenerateOutcome } },
  ];
}

/** Measures one route (or provider jobs) up to ATTEMPTS times while it is over its limit: the cheapest run stands. */
async function measureWithRetries(route: string, budgets: Budgets, machine: number, measure: () => Promise<Measurement>): Promise<Measurement> {
  let best: Measurement | undefined;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const m = await measure();
    progress(`${route}: ${m.cpuUsPerRequest.toFixed(0)} µs/request (attempt ${attempt}${m.failed ? `, ${m.failed} not ok` : ''})`);
    // Failed answers are judged as they are; otherwise the cheapest attempt stands.
    if (m.failed > 0 || !best || m.cpuUsPerRequest < best.cpuUsPerRequest) best = m;
    if (best.failed > 0 || judgeRoute(budgets.routes[route]?.cpuUsPerRequest, best, route, machine).pass) break;
  }
  return best!;
}

async function guardMode(name: 'standalone' | 'distributed', budgets: Budgets, machine: number): Promise<Measurement[]> {
  progress(`${name}: starting`);
  const fake = await startFakeReplicate({ token: FAKE_TOKEN, durationMs: PREDICTION_MS });
  const mode = await (name === 'standalone' ? startStandaloneMode : startDistributedMode)(servers, WORKERS, ACCOUNTS, {
    generationEnv: fakeReplicateEnv(FAKE_TOKEN),
    // Room for every provider job at once (the account's parallel slots are not what is measured).
    parallel: Math.max(256, PROVIDER_JOBS),
  });
  try {
    const jobs = await seedJobs(mode.url, mode.keys, Math.ceil(CONNECTIONS / ACCOUNTS));
    await bindToFake(mode, PROVIDER_RUN.model, fake, 'ok-video');
    const pids = () => mode.processes.map((p) => p.pid);
    // What seeding left to finish (captures, events) is done before the idle rate is read.
    await sleep(2_000);
    const idle = await idleCpuPerSecond(pids);
    progress(`${name}: ${idle.toFixed(1)} ms of CPU per second idle`);
    const measured: Measurement[] = [];
    for (const { route, run } of routeRuns(mode, jobs)) {
      const full = `${name} ${route}`;
      measured.push(await measureWithRetries(full, budgets, machine, () => measureRoute(full, mode.url, pids, run, idle)));
    }
    const providerJob = `${name} ${ROUTES.providerJob}`;
    measured.push(await measureWithRetries(providerJob, budgets, machine, () => measureProviderJobs(providerJob, mode, pids, PROVIDER_RUN, idle)));
    return measured;
  } finally {
    await mode.stop();
    await fake.close();
  }
}

/** The reference server's CPU per request now (the cheapest of two runs). */
async function measureReference(): Promise<number> {
  const server = await startReferenceServer();
  try {
    const run: RouteRun = { connections: CONNECTIONS, warmup: 2_000, requests: REFERENCE_REQUESTS, request: () => ({ method: 'GET', path: '/api/v1/generations/x', headers: { authorization: 'Bearer x' } }) };
    const runs = [await measureRoute('reference', server.url, () => [server.pid], run), await measureRoute('reference', server.url, () => [server.pid], run)];
    return Math.min(...runs.map((r) => r.cpuUsPerRequest));
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const budgets = JSON.parse(readFileSync(join(ROOT, 'bench', 'budgets.json'), 'utf8')) as Budgets;
  const loadBefore = loadAverage();
  progress(`bench:guard on ${coreCount()} cores, load average ${loadBefore}; ${commitMeasured()}`);
  const referenceUs = await measureReference();
  const machine = machineFactor(budgets, referenceUs);
  progress(`reference server: ${referenceUs.toFixed(0)} µs/request (${budgets.reference.cpuUsPerRequest} when the budgets were set): machine factor ${machine.toFixed(2)}`);
  const measured = [...(await guardMode('standalone', budgets, machine)), ...(await guardMode('distributed', budgets, machine))];
  const { pass, verdicts } = judge(budgets, measured, machine);
  process.stdout.write(
    [
      `## bench:guard (CPU per request against bench/budgets.json)`,
      '',
      `- machine: ${coreCount()} cores, load average ${loadBefore} before, ${loadAverage()} after; ${CONNECTIONS} connections, GET ${GET_REQUESTS} and POST ${POST_REQUESTS} requests and ${PROVIDER_JOBS} provider jobs (predictions of ${PREDICTION_MS} ms) per mode after a warm-up`,
      `- reference server: ${referenceUs.toFixed(0)} µs/request against ${budgets.reference.cpuUsPerRequest} when the budgets were set: budgets x ${machine.toFixed(2)}`,
      '',
      table(
        ['route', 'CPU µs/request', 'budget µs', 'x budget', ''],
        verdicts.map((v) => [v.route, v.measuredUs.toFixed(0), v.budgetUs.toFixed(0), v.factor.toFixed(2), v.pass ? 'ok' : 'FAIL']),
      ),
      '',
      ...verdicts.map((v) => v.line),
      '',
      `${pass ? 'PASS' : 'FAIL'} in ${((performance.now() - started) / 1000).toFixed(0)} s`,
      '',
    ].join('\n'),
  );
  if (!pass) process.exitCode = 1;
}

runBenchmark('bench:guard', LIMIT_SECONDS, main);
