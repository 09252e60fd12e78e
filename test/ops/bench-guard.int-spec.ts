import { measureRoute, type RouteRun } from '../../bench/guard/measure';
import { startReferenceServer, type ReferenceServer } from '../../bench/guard/reference-server';
import { judge } from '../../bench/guard/verdict';

/**
 * The guard fails on a deliberately slowed route: the reference server is measured as the guard
 * measures a route (CPU of its process per request, from /proc) and that figure becomes the
 * route's budget; the same route with a busy loop of 1 ms injected into each answer (BURN_US) is
 * then judged against it, and the verdict fails, naming the route and its factor.
 */
const ROUTE = 'reference GET /api/v1/generations/{id}';
const run: RouteRun = { connections: 8, warmup: 500, requests: 2_000, request: () => ({ method: 'GET', path: '/api/v1/generations/x', headers: { authorization: 'Bearer x' } }) };

async function measured(burnUs: number) {
  let server: ReferenceServer | undefined;
  try {
    server = await startReferenceServer(burnUs);
    const pid = server.pid;
    return await measureRoute(ROUTE, server.url, () => [pid], run);
  } finally {
    await server?.stop();
  }
}

describe('bench:guard on a slowed route', () => {
  it('fails the route when each answer burns 1 ms more CPU than when its budget was set', async () => {
    const plain = await measured(0);
    expect(plain.failed).toBe(0);
    expect(plain.cpuUsPerRequest).toBeGreaterThan(0);
    const budgets = { reference: { cpuUsPerRequest: plain.cpuUsPerRequest }, routes: { [ROUTE]: { cpuUsPerRequest: plain.cpuUsPerRequest } } };
    expect(judge(budgets, [plain]).pass).toBe(true);

    const slowed = await measured(1_000);
    const { pass, verdicts } = judge(budgets, [slowed]);
    expect(slowed.cpuUsPerRequest).toBeGreaterThan(750);
    expect(pass).toBe(false);
    expect(verdicts[0].line).toMatch(/^FAIL reference GET \/api\/v1\/generations\/\{id\}: \d+ µs\/request over 2000 requests, \d+\.\d\dx its budget of \d+ µs, over the limit of 1\.5x by \d+ %$/);
  }, 60_000);
});
