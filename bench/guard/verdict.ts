/**
 * The CPU-per-request guard's verdict (`npm run bench:guard`, bench/README.md): each measured route
 * against its budget in bench/budgets.json. Pure, so its spec can feed it numbers.
 *
 * The tolerance is a constant here, not a field of the budget file: a route fails at more than 1.5
 * times its budget, whatever the file says. A budget is lowered in the commit that earns it and
 * raised only with its reason in bench/HISTORY.md.
 */
export const TOLERANCE = 1.5;

export interface Budgets {
  /** µs of CPU (every service process, user + system) per request, by route name. */
  routes: Record<string, { cpuUsPerRequest: number }>;
  /** What the reference server (reference-server.ts) cost per request when the budgets were set. */
  reference: { cpuUsPerRequest: number };
}

/**
 * How much dearer CPU is on this machine now than when the budgets were set: the reference
 * server's cost now over its cost then, never below 1 (a quiet machine does not tighten the
 * budgets; a machine whose every core is contended makes each request's CPU dearer, service's and
 * reference's alike).
 */
export function machineFactor(budgets: Budgets, referenceNowUs: number): number {
  const factor = referenceNowUs / budgets.reference.cpuUsPerRequest;
  return Number.isFinite(factor) && factor > 1 ? factor : 1;
}

export interface Measurement {
  route: string;
  /** µs of CPU of every service process per request served; NaN when it could not be read. */
  cpuUsPerRequest: number;
  requests: number;
  /** Answers that were not the expected 200: a route that fails cheaply must not pass. */
  failed: number;
}

export interface RouteVerdict {
  route: string;
  /** The budget, times the machine factor. */
  budgetUs: number;
  measuredUs: number;
  /** measured / budget. */
  factor: number;
  pass: boolean;
  /** One line that says which route and by how much. */
  line: string;
}

const us = (n: number) => `${Number.isFinite(n) ? n.toFixed(0) : 'n/a'} µs`;

export function judgeRoute(budget: number | undefined, m: Measurement | undefined, route: string, machine = 1): RouteVerdict {
  const budgetUs = budget === undefined ? undefined : budget * machine;
  if (budgetUs === undefined || !(budgetUs > 0)) {
    return { route, budgetUs: NaN, measuredUs: m?.cpuUsPerRequest ?? NaN, factor: NaN, pass: false, line: `FAIL ${route}: no budget in bench/budgets.json` };
  }
  if (m === undefined) {
    return { route, budgetUs, measuredUs: NaN, factor: NaN, pass: false, line: `FAIL ${route}: not measured (budget ${us(budgetUs)}/request)` };
  }
  const factor = m.cpuUsPerRequest / budgetUs;
  const within = Number.isFinite(factor) && factor <= TOLERANCE;
  const pass = within && m.failed === 0 && m.requests > 0;
  const figures = `${us(m.cpuUsPerRequest)}/request over ${m.requests} requests, ${Number.isFinite(factor) ? factor.toFixed(2) : 'n/a'}x its budget of ${us(budgetUs)}${machine > 1 ? ` (${us(budget ?? NaN)} x ${machine.toFixed(2)} for the machine's load)` : ''}`;
  let line: string;
  if (!Number.isFinite(factor)) line = `FAIL ${route}: CPU not measured (${figures})`;
  else if (!within) line = `FAIL ${route}: ${figures}, over the limit of ${TOLERANCE}x by ${(((factor - TOLERANCE) / TOLERANCE) * 100).toFixed(0)} %`;
  else if (m.failed > 0 || m.requests === 0) line = `FAIL ${route}: ${m.failed} of ${m.requests} answers not ok (${figures})`;
  else line = `ok   ${route}: ${figures} (limit ${TOLERANCE}x)`;
  return { route, budgetUs, measuredUs: m.cpuUsPerRequest, factor, pass, line };
}

/** Every budgeted route and every measured one: a route missing on either side fails too. */
export function judge(budgets: Budgets, measurements: Measurement[], machine = 1): { pass: boolean; verdicts: RouteVerdict[] } {
  const routes = [...new Set([...Object.keys(budgets.routes), ...measurements.map((m) => m.route)])];
  const verdicts = routes.map((route) => judgeRoute(budgets.routes[route]?.cpuUsPerRequest, measurements.find((m) => m.route === route), route, machine));
  return { pass: verdicts.length > 0 && verdicts.every((v) => v.pass), verdicts };
}
