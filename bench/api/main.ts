import 'reflect-metadata';
import { Client } from 'pg';
import { seedJobs, syncGenerateOutcome, syncGenerateRequest } from '../support/api-requests';
import { runBenchmark } from '../support/cleanup';
import { LoadRequest, LoadResult, runLoad } from '../support/load';
import { commitMeasured, coreCount, loadAverage } from '../support/machine';
import { table } from '../support/markdown';
import { BenchServers, RunningMode, startDistributedMode, startStandaloneMode } from '../support/modes';
import { sleep } from '../support/processes';
import { cpuMeter, serverCpuMeter } from '../support/cpu';
import { benchServers, onlySet, positiveInteger, positiveNumber } from '../support/settings';
import { Counters, DatabaseCounters, PerRequest } from './database-counters';
import { Floor, startFloor } from './floor';

/**
 * `npm run bench:api` (bench/HISTORY.md, issue 13): the service's two hot routes side by side with
 * a bare Fastify + pg server doing the same database work once (floor-server.ts), on the same
 * PostgreSQL server, driven by the same client, in standalone and distributed mode, for one account
 * and for four. Tables (Markdown) to stdout, progress to stderr. Everything it makes is unique to
 * the run and removed at the end, also on failure, Ctrl-C or the watchdog.
 */
const servers = benchServers();
const SECONDS = positiveNumber('BENCH_SECONDS', 8);
const WARMUP_SECONDS = positiveNumber('BENCH_WARMUP_SECONDS', 2);
/**
 * Before a mode's first row, each route's load on the fresh service and floor, not measured: the
 * rows compare steady states. Without it the first row of each route measured the JIT's first
 * seconds as well (bench/HISTORY.md, 29 November: 886 against 555 µs per sync generation).
 */
const PROCESS_WARMUP_SECONDS = positiveNumber('BENCH_PROCESS_WARMUP_SECONDS', 8);
const CONNECTIONS = positiveInteger('BENCH_CONNECTIONS', 50);
/** The service's WORKER_CONCURRENCY: more than the connections, so workers never queue sync jobs. */
const WORKERS = positiveInteger('BENCH_WORKER_CONCURRENCY', 64);
const ONLY = onlySet(['standalone', 'distributed', 'get', 'post'] as const);
const MODES = (['standalone', 'distributed'] as const).filter((m) => ONLY.has(m) || (!ONLY.has('standalone') && !ONLY.has('distributed')));
const ROUTES = (['get', 'post'] as const).filter((r) => ONLY.has(r) || (!ONLY.has('get') && !ONLY.has('post')));
const ACCOUNT_COUNTS = [1, 4] as const;
/** Pause after each run, so that what one run left queued (events, captures) does not load the next. */
const SETTLE_SECONDS = 2;
const RUN_SECONDS = WARMUP_SECONDS + SECONDS + SETTLE_SECONDS;
const PLANNED_RUNS = 1 + MODES.length * ROUTES.length * ACCOUNT_COUNTS.length * 2;
/** The watchdog: start-up and seeding of each mode, plus every run, with room for a slow machine. */
const LIMIT_SECONDS = positiveNumber(
  'BENCH_LIMIT_SECONDS',
  Math.ceil(60 + 90 * MODES.length + 1.5 * (RUN_SECONDS * PLANNED_RUNS + 2 * PROCESS_WARMUP_SECONDS * MODES.length * ROUTES.length)),
);

type ModeName = (typeof MODES)[number];
type RouteName = (typeof ROUTES)[number];

/**
 * Issue 34's goals: the service's share of the floor's throughput, with p99 under 50 ms at 50
 * connections (issue 13's, met before, were 0.5 and 0.35 for reads, 0.25 with p99 < 100 ms and 0.15
 * for the sync POST). Judged on every row, the four-account rows too.
 */
const TARGETS: Record<RouteName, Record<ModeName, { ratio: number; p99Ms?: number }>> = {
  get: { standalone: { ratio: 0.8, p99Ms: 50 }, distributed: { ratio: 0.6, p99Ms: 50 } },
  post: { standalone: { ratio: 0.5, p99Ms: 50 }, distributed: { ratio: 0.3, p99Ms: 50 } },
};

/** Completed generations per account made before measuring: each connection reads a job of its own. */
const JOBS_PER_ACCOUNT = Math.ceil(CONNECTIONS / Math.min(...ACCOUNT_COUNTS));

const benchStarted = performance.now();
const progress = (line: string) => process.stderr.write(`[${((performance.now() - benchStarted) / 1000).toFixed(1)} s] ${line}\n`);

interface Row {
  mode: ModeName;
  route: RouteName;
  accounts: number;
  service: Measured;
  floor: Measured;
  /** The service's database work per request, set once the run's counting window closes. */
  database?: PerRequest;
}

interface Target {
  url: string;
  request(lane: number): LoadRequest;
  outcome?(status: number, body: string): string;
}

/**
 * A run's load figures, the CPU its server's processes (every one of the service's) spent per
 * answer, and PostgreSQL's and the NATS server's over the same run, µs (NaN: not on this machine).
 */
type Measured = LoadResult & { cpuUs: number; postgresCpuUs: number; natsCpuUs: number };

async function measure(label: string, target: Target, pids: () => Array<number | undefined>): Promise<Measured> {
  progress(`${label}: ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s`);
  const cpu = cpuMeter(pids);
  const postgresCpu = serverCpuMeter('postgres');
  const natsCpu = serverCpuMeter('nats-server');
  const result = await runLoad(target.url, { connections: CONNECTIONS, warmupSeconds: WARMUP_SECONDS, seconds: SECONDS, ...target });
  const [cpuUs, postgresCpuUs, natsCpuUs] = [cpu(result.answered), postgresCpu(result.answered), natsCpu(result.answered)];
  progress(
    `${label}: ${result.perSecond.toFixed(0)}/s, p99 ${result.p99.toFixed(1)} ms, CPU ${cpuUs.toFixed(0)} µs/req (PostgreSQL ${postgresCpuUs.toFixed(0)}, NATS ${natsCpuUs.toFixed(0)})${result.failed ? `, ${result.failed} not ok` : ''}`,
  );
  await sleep(SETTLE_SECONDS * 1000);
  return { ...result, cpuUs, postgresCpuUs, natsCpuUs };
}

/** Connection `lane` stands for account `lane mod accounts`, as a client of that account would. */
const accountOf = (lane: number, accounts: number) => lane % accounts;

function targets(mode: RunningMode, floor: Floor, jobs: string[][], route: RouteName, accounts: number): { service: Target; floor: Target } {
  const auth = (lane: number) => ({ authorization: `Bearer ${mode.keys[accountOf(lane, accounts)]}` });
  switch (route) {
    case 'get': {
      const path = (lane: number) => {
        const own = jobs[accountOf(lane, accounts)];
        return `/api/v1/generations/${own[Math.floor(lane / accounts) % own.length]}`;
      };
      return {
        service: { url: mode.url, request: (lane) => ({ method: 'GET', path: path(lane), headers: auth(lane) }) },
        floor: { url: floor.url, request: (lane) => ({ method: 'GET', path: path(lane), headers: auth(lane) }) },
      };
    }
    case 'post':
      return {
        service: { url: mode.url, request: (lane) => syncGenerateRequest(mode.keys[accountOf(lane, accounts)]), outcome: syncGenerateOutcome },
        floor: {
          url: floor.url,
          // The same headers and JSON body as the service's request: only the path names the row.
          request: (lane) => ({ ...syncGenerateRequest(mode.keys[accountOf(lane, accounts)]), path: `/floor/accounts/${floor.accountIds[accountOf(lane, accounts)]}/debit` }),
        },
      };
  }
}

interface ModeRun {
  rows: Row[];
  /** The client against the floor's in-memory route (no database), measured once. */
  ceiling?: Measured;
}

async function runMode(name: ModeName, start: (servers: BenchServers, workers: number, accounts: number) => Promise<RunningMode>, withCeiling: boolean): Promise<ModeRun> {
  const accounts = Math.max(...ACCOUNT_COUNTS);
  progress(`${name}: starting, ${accounts} enterprise accounts`);
  const mode = await start(servers, WORKERS, accounts);
  let floor: Floor | undefined;
  try {
    progress(`${name}: seeding ${JOBS_PER_ACCOUNT} completed generations per account`);
    const jobs = await seedJobs(mode.url, mode.keys, JOBS_PER_ACCOUNT);
    const counters = new DatabaseCounters(servers.pgAdminUrl, new URL(mode.databaseUrl).pathname.slice(1));
    counters.busy();
    floor = await startFloor(servers.pgAdminUrl, mode.databaseUrl, accounts);
    const run: ModeRun = { rows: [] };
    const floorPids = () => [floor?.pid];
    const servicePids = () => mode.processes.map((p) => p.pid);
    for (const route of ROUTES) {
      const pair = targets(mode, floor, jobs, route, ACCOUNT_COUNTS[0]);
      progress(`${name} ${route}: warming the service and the floor, ${PROCESS_WARMUP_SECONDS} s each (not measured)`);
      for (const target of [pair.service, pair.floor]) await runLoad(target.url, { connections: CONNECTIONS, warmupSeconds: 0, seconds: PROCESS_WARMUP_SECONDS, ...target });
    }
    // The service idles from here to its first run: its background rate is measured meanwhile.
    const idleFrom = await counters.settled();
    if (withCeiling) {
      const ids = jobs.flat();
      run.ceiling = await measure('client ceiling (floor server, no database)', {
        url: floor.url,
        request: (lane) => ({ method: 'GET', path: `/memory/generations/${ids[lane % ids.length]}`, headers: { authorization: `Bearer ${mode.keys[0]}` } }),
      }, floorPids);
    }
    // Each service run's database work is counted from just before it to just before the next one
    // (after the next floor run, by when PostgreSQL has published it).
    let open: { row: Row; from: Counters } | undefined;
    const close = (to: Counters) => {
      if (open) open.row.database = counters.perRequest(open.from, to, open.row.service.answered);
      else counters.idleBetween(idleFrom, to);
    };
    for (const route of ROUTES) {
      for (const count of ACCOUNT_COUNTS) {
        const pair = targets(mode, floor, jobs, route, count);
        const floorResult = await measure(`${name} ${route} ${count} account(s): floor`, pair.floor, floorPids);
        const before = await counters.settled();
        close(before);
        const serviceResult = await measure(`${name} ${route} ${count} account(s): service`, pair.service, servicePids);
        counters.busy();
        const row: Row = { mode: name, route, accounts: count, service: serviceResult, floor: floorResult };
        run.rows.push(row);
        open = { row, from: before };
      }
    }
    progress(`${name}: waiting for PostgreSQL to publish the last run's counters`);
    close(await counters.settled());
    return run;
  } finally {
    await floor?.stop();
    await mode.stop();
  }
}

const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(1) : n.toFixed(0)) : '-');
const rate = (n: number) => Math.round(n).toLocaleString('en-US');
const percent = (n: number) => `${Math.round(n * 100)} %`;
const micros = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : '-');

function verdict(row: Row): { target: string; result: string; ratio: number } {
  const goal = TARGETS[row.route][row.mode];
  const ratio = row.service.perSecond / row.floor.perSecond;
  const met = ratio >= goal.ratio && (goal.p99Ms === undefined || row.service.p99 < goal.p99Ms) && row.service.failed === 0;
  return { target: `≥ ${goal.ratio.toFixed(2)}${goal.p99Ms ? `, p99 < ${goal.p99Ms} ms` : ''}`, result: met ? 'PASS' : 'FAIL', ratio };
}

function routeTable(rows: Row[], unit: string, per: string): string {
  return table(
    [
      'mode',
      'accounts',
      `service ${unit}`,
      'p50 ms',
      'p99 ms',
      `CPU µs/${per}`,
      `PostgreSQL µs/${per}`,
      `NATS µs/${per}`,
      'floor req/s',
      'p50 ms',
      'p99 ms',
      'CPU µs/req',
      'PostgreSQL µs/req',
      'ratio',
      'target',
      '',
      `db tx/${per}`,
      `rows written/${per}`,
    ],
    rows.map((row) => {
      const { target, result, ratio } = verdict(row);
      return [
        row.mode,
        String(row.accounts),
        rate(row.service.perSecond),
        ms(row.service.p50),
        ms(row.service.p99),
        row.service.cpuUs.toFixed(0),
        micros(row.service.postgresCpuUs),
        row.mode === 'distributed' ? micros(row.service.natsCpuUs) : '-',
        rate(row.floor.perSecond),
        ms(row.floor.p50),
        ms(row.floor.p99),
        row.floor.cpuUs.toFixed(0),
        micros(row.floor.postgresCpuUs),
        ratio.toFixed(2),
        target,
        result,
        row.database ? row.database.transactions.toFixed(1) : '-',
        row.database ? row.database.rowsWritten.toFixed(1) : '-',
      ];
    }),
  );
}

async function postgresVersion(): Promise<string> {
  const client = new Client({ connectionString: servers.pgAdminUrl });
  await client.connect();
  try {
    return (await client.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const loadBefore = loadAverage();
  const commit = commitMeasured();
  const pgVersion = await postgresVersion();
  progress(`bench:api on ${coreCount()} cores, load average ${loadBefore}; ${commit}; watchdog ${LIMIT_SECONDS} s`);
  const runs: ModeRun[] = [];
  for (const name of MODES) {
    runs.push(await runMode(name, name === 'standalone' ? startStandaloneMode : startDistributedMode, runs.length === 0));
  }
  const rows = runs.flatMap((r) => r.rows);
  const ceiling = runs[0]?.ceiling;
  const floorBusiest = Math.max(...rows.map((r) => r.floor.clientLoopBusy));

  const out: string[] = [
    `## bench:api`,
    '',
    `- commit: ${commit}`,
    `- machine: ${coreCount()} cores, load average ${loadBefore} before, ${loadAverage()} after (1, 5, 15 min); Node ${process.version}; PostgreSQL ${pgVersion} at ${new URL(servers.pgAdminUrl).host}; NATS at ${new URL(servers.natsUrl).host}`,
    `- load: ${CONNECTIONS} keep-alive connections (undici, one request in flight each), ${WARMUP_SECONDS} s warm-up + ${SECONDS} s measured per cell, after ${PROCESS_WARMUP_SECONDS} s of each route's load on the fresh service and floor (not measured); the floor and the service measured back to back for each row`,
    `- floor: a bare Fastify route with plain pg, in a database of its own on the same server: GET does one SELECT by id on a copy of generation.jobs (same definition and rows), POST one UPDATE ... RETURNING of the account's balance row`,
    `- CPU µs: user + system CPU of the server's processes (all of the service's, or the floor server) per answer of the run, warm-up included (/proc/<pid>/stat, 10 ms ticks); PostgreSQL µs and NATS µs: the same for the PostgreSQL server's processes (backends that exited included, through the postmaster's children's time) and the NATS server (distributed only), when they run on this machine: all their work during the run, anyone else's included`,
    `- db tx, rows written: per request of the service run (warm-up included), from its database's pg_stat_database counters (xact_commit, read-only transactions included; tup_inserted + tup_updated + tup_deleted), net of its idle background rate`,
    '',
  ];
  for (const route of ROUTES) {
    const routeRows = rows.filter((r) => r.route === route);
    out.push(
      route === 'get' ? '### GET /api/v1/generations/{id} (floor: one SELECT by id)' : '### POST /api/v1/generate, sync, instant engine (floor: one UPDATE ... RETURNING)',
      '',
      route === 'get' ? routeTable(routeRows, 'req/s', 'req') : routeTable(routeRows, 'gen/s', 'gen'),
      '',
    );
  }
  if (ceiling) {
    out.push(
      `Client ceiling: ${rate(ceiling.perSecond)} req/s against the floor server answering from memory (p99 ${ms(ceiling.p99)} ms; client event loop ${percent(ceiling.clientLoopBusy)} busy, ${ceiling.clientCpuCores.toFixed(2)} cores). ` +
        `During the floor runs the client's event loop was at most ${percent(floorBusiest)} busy.`,
      '',
    );
  }
  const notOk = rows.flatMap((r) =>
    (['service', 'floor'] as const)
      .filter((side) => r[side].failed > 0)
      .map((side) => `- ${r.mode}, ${r.route}, ${r.accounts} account(s), ${side}: ${Object.entries(r[side].failures).map(([label, n]) => `${n} × ${label}`).join(', ')}`),
  );
  if (notOk.length > 0) out.push('Answers not counted (not a 200 with the expected body):', '', ...notOk, '');
  const verdicts = rows.map(verdict);
  out.push(`Targets met: ${verdicts.filter((v) => v.result === 'PASS').length} of ${verdicts.length}. Total ${((performance.now() - benchStarted) / 1000).toFixed(0)} s.`, '');
  process.stdout.write(out.join('\n'));
}

runBenchmark('bench:api', LIMIT_SECONDS, main);
