import { http } from '@gen/testing';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

type Outcome =
  | { kind: 'response'; method: string; status: number; body: any; retryAfter: string | null; id?: string; model?: string }
  | { kind: 'refused' }
  | { kind: 'dropped'; error: string };

const PRICES: Record<string, number> = { 'pixel-flux-1': 4, 'tone-weaver-1': 10, 'motion-lite-1': 40 };
const TYPES: Record<string, string> = { 'pixel-flux-1': 'TEXT_TO_IMAGE', 'tone-weaver-1': 'TEXT_TO_AUDIO', 'motion-lite-1': 'TEXT_TO_VIDEO' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The error behind a failed fetch: a refused connection (nothing was sent) or anything else (a dropped one). */
function classify(error: unknown): Outcome {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return { kind: 'refused' };
  return { kind: 'dropped', error: `${cause?.code ?? ''} ${cause?.message ?? String(error)}` };
}

/**
 * What the ingress in front of the gateway does when a pod terminates: once readiness fails and the
 * endpoint is removed, it sends that pod no new request (here: refused at once, as if routed to
 * another replica), while requests already sent run to completion. Without it, a request written
 * at the instant the listener closes (one still in the kernel's accept queue, or one written on an
 * idle keep-alive socket as it is closed) is reset, which no server can prevent.
 */
class EndpointGate {
  removed = false;
  readonly agent: Agent;

  constructor() {
    const connect = buildConnector({});
    this.agent = new Agent({
      connect: (options, callback) => {
        if (this.removed) {
          callback(Object.assign(new Error('endpoint removed'), { code: 'ECONNREFUSED' }), null);
          return;
        }
        connect(options, callback);
      },
    });
  }
}

async function request(url: string, method: string, path: string, key: string, gate: EndpointGate, body?: unknown) {
  if (gate.removed) throw Object.assign(new Error('endpoint removed'), { cause: { code: 'ECONNREFUSED' } });
  const res = await undiciFetch(`${url}${path}`, {
    method,
    dispatcher: gate.agent,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as any) : undefined };
}

/**
 * Client loops against the gateway until stopped: submits (a mix of models) and reads. Every
 * request ends as a response, a refused connection (the listener is closed: nothing was sent, a
 * load balancer retries elsewhere) or a dropped connection (the failure this test rules out).
 */
function load(url: string, key: string, models: string[], loops: number, gate = new EndpointGate()) {
  const outcomes: Outcome[] = [];
  let running = true;
  // Bounded in time and count whatever happens to the test (a failed assertion, a hung server).
  const deadline = Date.now() + 90_000;
  const loop = async (n: number) => {
    for (let i = 0; running && i < 2_000 && Date.now() < deadline; i++) {
      const model = models[(n + i) % models.length];
      try {
        const res = await request(url, 'POST', '/api/v1/generate', key, gate, { model, prompt: `load ${n}-${i}`, type: TYPES[model] });
        outcomes.push({ kind: 'response', method: 'POST', status: res.status, body: res.body, retryAfter: res.headers.get('retry-after'), id: res.body?.id, model });
        if (res.status < 300) {
          const read = await request(url, 'GET', `/api/v1/generations/${res.body.id}`, key, gate);
          outcomes.push({ kind: 'response', method: 'GET', status: read.status, body: read.body, retryAfter: read.headers.get('retry-after') });
        }
      } catch (error) {
        const outcome = classify(error);
        outcomes.push(outcome);
        if (outcome.kind === 'refused') await sleep(50);
      }
      await sleep(20);
    }
  };
  const done = Promise.all(Array.from({ length: loops }, (_, n) => loop(n)));
  return {
    outcomes,
    stopped: undefined as Promise<void> | undefined,
    stop() {
      running = false;
      this.stopped ??= done.then(() => gate.agent.close());
      return this.stopped;
    },
  };
}

/**
 * SIGTERM under load: the gateway and then the generation service are stopped while clients keep
 * submitting. Each exits 0 within its bound, no request is answered with a dropped connection,
 * and every accepted job completes and is charged exactly once (nothing lost, nothing held).
 */
describe('distributed: graceful shutdown under load', () => {
  let h: DistributedHarness;
  /** Stops the client loops of a test that failed half-way. */
  const stops: Array<() => Promise<void>> = [];

  afterEach(async () => {
    await Promise.all(stops.splice(0).map((stop) => stop()));
  });

  beforeAll(async () => {
    // Latency x2: image 0.3 s, audio 2 s, video 6 s. Generation drains for SHUTDOWN_TIMEOUT_MS - 5 s
    // = 3 s, so audio jobs finish during the drain and video jobs are handed back.
    h = await startDistributed({ env: { ENGINE_LATENCY_SCALE: '2' } });
  });
  afterAll(() => h?.close());

  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let value = await read();
    while (!done(value) && Date.now() < deadline) {
      await sleep(200);
      value = await read();
    }
    return value;
  }

  /** Every accepted job completes, each has one hold, captured, and the balance adds up. */
  async function expectNothingLost(accountId: string, key: string, initial: number, outcomes: Outcome[]) {
    const accepted = outcomes.filter((o): o is Extract<Outcome, { kind: 'response' }> => o.kind === 'response' && o.method === 'POST' && o.status < 300);
    expect(accepted.length).toBeGreaterThan(0);
    const ids = accepted.map((o) => o.id as string);
    expect(new Set(ids).size).toBe(ids.length);

    const jobs = await eventually(
      () => h.query<{ id: string; status: string; model_id: string }>('SELECT id, status, model_id FROM generation.jobs WHERE account_id = $1', [accountId]),
      (rows) => rows.length > 0 && rows.every((r) => r.status === 'completed'),
      60_000,
    );
    // Exactly the accepted jobs exist (a refused or 503-answered submit created nothing), all completed.
    expect(jobs.map((j) => j.id).sort()).toEqual([...ids].sort());
    expect(jobs.filter((j) => j.status !== 'completed')).toEqual([]);

    const expectedCharge = jobs.reduce((sum, j) => sum + PRICES[j.model_id], 0);
    const credits = await eventually(
      async () => (await http(h.url, 'GET', '/api/v1/credits', { key })).body,
      (c) => c?.held === 0 && c?.available === initial - expectedCharge,
      60_000,
    );
    expect(credits).toMatchObject({ held: 0, available: initial - expectedCharge });
    const holds = await h.query<{ job_id: string; status: string }>('SELECT job_id, status FROM billing.holds WHERE account_id = $1', [accountId]);
    const byJob = new Map(holds.map((hold) => [hold.job_id, hold.status]));
    for (const id of ids) expect(byJob.get(id)).toBe('captured');
    // Holds of submits that never became jobs were released, not left held.
    expect(holds.filter((hold) => hold.status === 'held')).toEqual([]);
  }

  it('gateway: SIGTERM while clients submit; requests in flight are answered, the process exits 0', async () => {
    const initial = 100_000;
    const { accountId, key } = await h.account('enterprise', initial);
    const gate = new EndpointGate();
    const traffic = load(h.url, key, ['pixel-flux-1', 'tone-weaver-1', 'pixel-flux-1'], 6, gate);
    stops.push(() => traffic.stop());
    await sleep(2_000);
    const started = Date.now();
    const stopping = h.kill('gateway', 'SIGTERM');
    await sleep(100); // readiness has turned 503; the endpoint is taken out of the Service
    gate.removed = true;
    const exit = await stopping;
    const tookMs = Date.now() - started;
    await sleep(300);
    await traffic.stop();
    await h.restart('gateway');

    expect(exit).toBe('code 0');
    expect(tookMs).toBeLessThan(8_000 + 5_000);
    const dropped = traffic.outcomes.filter((o) => o.kind === 'dropped');
    expect(dropped).toEqual([]);
    const responses = traffic.outcomes.filter((o): o is Extract<Outcome, { kind: 'response' }> => o.kind === 'response');
    expect(responses.length).toBeGreaterThan(6);
    expect(traffic.outcomes.some((o) => o.kind === 'refused')).toBe(true);
    for (const res of responses) {
      expect([200, 202, 429, 503]).toContain(res.status);
      if (res.status >= 400) expect(res.body?.error?.code).toBeDefined();
    }

    await expectNothingLost(accountId, key, initial, traffic.outcomes);
  });

  it('generation: SIGTERM while jobs run; they finish or are handed back, the process exits 0, nothing is lost', async () => {
    const initial = 100_000;
    const { accountId, key } = await h.account('enterprise', initial);
    const traffic = load(h.url, key, ['tone-weaver-1', 'pixel-flux-1', 'motion-lite-1'], 4);
    stops.push(() => traffic.stop());
    await sleep(2_500);
    const processing = await h.query<{ n: string }>(`SELECT count(*) AS n FROM generation.jobs WHERE account_id = $1 AND status = 'processing'`, [accountId]);
    expect(Number(processing[0].n)).toBeGreaterThan(0);

    const started = Date.now();
    const exit = await h.kill('generation', 'SIGTERM');
    const tookMs = Date.now() - started;
    expect(exit).toBe('code 0');
    expect(tookMs).toBeLessThan(8_000 + 5_000);
    // Nothing is left processing: running jobs finished or went back to the queue.
    const left = await h.query<{ status: string; n: string }>(
      `SELECT status, count(*) AS n FROM generation.jobs WHERE account_id = $1 GROUP BY status`,
      [accountId],
    );
    expect(left.find((r) => r.status === 'processing')).toBeUndefined();
    // The 6 s video jobs outlast the 3 s drain: they were handed back (queued again, attempt not counted).
    const handedBack = await h.query<{ attempts: number }>(
      `SELECT attempts FROM generation.jobs WHERE account_id = $1 AND status = 'queued' AND started_at IS NOT NULL`,
      [accountId],
    );
    expect(handedBack.length).toBeGreaterThan(0);
    expect(handedBack.every((j) => j.attempts === 0)).toBe(true);
    // Shorter jobs running at SIGTERM finished during the drain.
    const finishedDuringDrain = await h.query(
      `SELECT id FROM generation.jobs WHERE account_id = $1 AND status = 'completed' AND model_id = 'tone-weaver-1' AND completed_at > $2`,
      [accountId, new Date(started)],
    );
    expect(finishedDuringDrain.length).toBeGreaterThan(0);

    await sleep(500); // submits while no generation replica answers: 503 with Retry-After, holds released
    await h.restart('generation');
    await sleep(500);
    await traffic.stop();

    // The gateway stayed up: every request got an HTTP answer.
    expect(traffic.outcomes.filter((o) => o.kind !== 'response')).toEqual([]);
    for (const res of traffic.outcomes as Array<Extract<Outcome, { kind: 'response' }>>) {
      expect([200, 202, 429, 503]).toContain(res.status);
      if (res.status === 503) {
        expect(res.body.error.code).toBe('service_unavailable');
        expect(res.retryAfter).toMatch(/^\d+$/);
      }
    }
    await expectNothingLost(accountId, key, initial, traffic.outcomes);
  });

  it('billing and webhooks: SIGTERM while events flow; both exit 0 and every accepted job is charged once', async () => {
    const initial = 100_000;
    const { accountId, key } = await h.account('enterprise', initial);
    const traffic = load(h.url, key, ['pixel-flux-1', 'tone-weaver-1'], 3);
    stops.push(() => traffic.stop());
    await sleep(1_500);
    expect(await h.kill('webhooks', 'SIGTERM')).toBe('code 0');
    expect(await h.kill('billing', 'SIGTERM')).toBe('code 0');
    await sleep(500); // submits while no billing replica answers: 503, nothing reserved
    await h.restart('billing');
    await h.restart('webhooks');
    await sleep(500);
    await traffic.stop();

    expect(traffic.outcomes.filter((o) => o.kind !== 'response')).toEqual([]);
    for (const res of traffic.outcomes as Array<Extract<Outcome, { kind: 'response' }>>) {
      expect([200, 202, 429, 503]).toContain(res.status);
    }
    await expectNothingLost(accountId, key, initial, traffic.outcomes);
  });
});
