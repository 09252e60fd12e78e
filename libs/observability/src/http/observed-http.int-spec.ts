import { Body, Controller, Get, HttpCode, Module, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { request as rawRequest } from 'node:http';
import { Writable } from 'node:stream';
import { MESSAGE_CONTRACT_VERSION } from '@gen/contracts';
import { DrainState } from '../lifecycle/drain-state';
import { ObservabilityModule } from '../observability.module';
import { createServiceHttpApp } from './service-http-app';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const API_KEY = 'gsk_live_' + 'Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF';

@Controller()
class ProbeController {
  @Get('ok')
  ok(): { ok: true } {
    return { ok: true };
  }

  @Get('boom')
  boom(): never {
    throw new Error('kaput');
  }

  @Get('slow')
  async slow(): Promise<{ ok: true }> {
    await sleep(600);
    return { ok: true };
  }

  @Post('callbacks/:provider/:token')
  @HttpCode(200)
  callback(): { ok: true } {
    return { ok: true };
  }

  @Post('slow-job')
  @HttpCode(200)
  async slowJob(@Body() body: { prompt?: string }): Promise<{ id: string; status: string; prompt?: string }> {
    await sleep(600);
    return { id: 'job-1', status: 'completed', prompt: body.prompt };
  }
}

/** Every line the application writes, kept for assertions. */
class Lines extends Writable {
  private readonly chunks: string[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(chunk.toString('utf8'));
    done();
  }
  all(): Array<Record<string, any>> {
    return this.chunks
      .join('')
      .split('\n')
      .filter((l) => l)
      .map((l) => JSON.parse(l) as Record<string, any>);
  }
  of(requestId: string): Array<Record<string, any>> {
    return this.all().filter((l) => l.requestId === requestId);
  }
}

/** A GET whose client gives up after `leaveAfterMs`, before the answer. */
function getAndLeave(url: string, requestId: string, leaveAfterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const req = rawRequest(url, { headers: { 'x-request-id': requestId } });
    req.on('error', () => resolve());
    req.end();
    setTimeout(() => {
      req.destroy();
      resolve();
    }, leaveAfterMs);
  });
}

/** One line per request, written when it is answered or its client left; metrics; drain. */
describe('observed HTTP (a service HTTP app on a real socket)', () => {
  const lines = new Lines();
  let app: NestFastifyApplication;
  let url: string;

  beforeAll(async () => {
    @Module({
      imports: [
        ObservabilityModule.forRoot({
          service: 'probe',
          logging: { level: 'info', destination: lines },
          defaultMetrics: false,
          builds: [{ service: 'probe', version: '2.3.4', contract: MESSAGE_CONTRACT_VERSION }],
        }),
      ],
      controllers: [ProbeController],
    })
    class ProbeModule {}
    app = await createServiceHttpApp(ProbeModule);
    await app.listen(0, '127.0.0.1');
    const address = app.getHttpServer().address() as { port: number };
    url = `http://127.0.0.1:${address.port}`;
  });
  afterAll(() => app?.close());

  const get = (path: string, requestId: string) => fetch(`${url}${path}`, { headers: { 'x-request-id': requestId } });

  it("/healthz adds the service's release (service, version, contract) to terminus's report, and gen_build_info says it too", async () => {
    const res = await get('/healthz', 'req-health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ok',
      info: { process: { status: 'up', uptimeSeconds: expect.any(Number) } },
      error: {},
      details: { process: { status: 'up', uptimeSeconds: expect.any(Number) } },
      service: 'probe',
      version: '2.3.4',
      contract: MESSAGE_CONTRACT_VERSION,
    });
    expect(await (await get('/metrics', 'req-metrics')).text()).toContain(`gen_build_info{service="probe",version="2.3.4",contract="${MESSAGE_CONTRACT_VERSION}"} 1`);
  });

  it('writes one line per request: id, method and path without the query, route, status, duration', async () => {
    const res = await get('/ok?token=s3cret-value&x=1', 'req-ok');
    expect(res.status).toBe(200);
    await sleep(50);
    expect(lines.of('req-ok')).toEqual([
      {
        level: 'info',
        time: expect.any(String),
        service: 'probe',
        requestId: 'req-ok',
        req: { method: 'GET', path: '/ok' },
        durationMs: expect.any(Number),
        route: '/ok',
        status: 200,
        msg: 'request completed',
      },
    ]);
    expect(JSON.stringify(lines.all())).not.toContain('s3cret-value');
  });

  it('an unknown path: warn, route "unmatched", and a credential in the path scrubbed', async () => {
    expect((await get(`/keys/${API_KEY}`, 'req-404')).status).toBe(404);
    await sleep(50);
    expect(lines.of('req-404')).toEqual([
      expect.objectContaining({ level: 'warn', route: 'unmatched', status: 404, req: { method: 'GET', path: '/keys/[redacted]' } }),
    ]);
    expect(JSON.stringify(lines.all())).not.toContain(API_KEY);
  });

  it("a route's secret parameter (a provider callback's token) is logged as [redacted], the others as sent", async () => {
    const token = 'Zq7t0kenThatHasNoCredentialShape9x';
    expect((await fetch(`${url}/callbacks/replicate/${token}`, { method: 'POST', headers: { 'x-request-id': 'req-callback' } })).status).toBe(200);
    await sleep(50);
    expect(lines.of('req-callback')).toEqual([
      expect.objectContaining({ route: '/callbacks/:provider/:token', req: { method: 'POST', path: '/callbacks/replicate/[redacted]' } }),
    ]);
    expect(JSON.stringify(lines.all())).not.toContain(token);
  });

  it('a failure: its request line at error level, and the error logged with the request id', async () => {
    expect((await get('/boom', 'req-500')).status).toBe(500);
    await sleep(50);
    const own = lines.of('req-500');
    expect(own).toContainEqual(expect.objectContaining({ level: 'error', msg: 'Unexpected error while handling a request', err: expect.objectContaining({ message: 'kaput' }) }));
    expect(own.filter((l) => l.msg === 'request completed')).toEqual([expect.objectContaining({ level: 'error', status: 500, route: '/boom' })]);
  });

  it('a client that leaves before the answer: one "request aborted" line with no status, and it is no longer counted in flight', async () => {
    await getAndLeave(`${url}/slow`, 'req-gone', 100);
    await sleep(900); // the handler finishes meanwhile; its answer goes nowhere
    expect(lines.of('req-gone')).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'request aborted', status: null, route: '/slow', clientGoneAfterMs: expect.any(Number), unsent: { status: 200 } }),
    ]);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    // Only the scrape itself is in flight.
    expect(metrics).toMatch(/^gen_http_requests_in_flight\{service="probe"\} 1$/m);
    // It was never answered: no status to count it under.
    expect(metrics).not.toContain('route="/slow"');
  });

  it('a client that leaves after sending its whole body (a sync submit waiting on its job): its line says when, and what became of the job', async () => {
    await new Promise<void>((resolve) => {
      const req = rawRequest(`${url}/slow-job`, { method: 'POST', headers: { 'x-request-id': 'req-left', 'content-type': 'application/json' } });
      req.on('error', () => resolve());
      req.end(JSON.stringify({ prompt: 'a lighthouse' }));
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 150);
    });
    await sleep(900);
    const [line, ...more] = lines.of('req-left');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 'warn', msg: 'request aborted', status: null, route: '/slow-job', unsent: { status: 200, job: { id: 'job-1', status: 'completed' } } });
    expect(line.clientGoneAfterMs).toBeGreaterThanOrEqual(100);
    expect(line.clientGoneAfterMs).toBeLessThan(600);
    expect(line.durationMs).toBeGreaterThanOrEqual(600);
  });

  it('probes and scrapes are not logged one by one', async () => {
    await get('/healthz', 'req-health');
    await get('/metrics', 'req-metrics');
    await sleep(50);
    expect(lines.of('req-health')).toEqual([]);
    expect(lines.of('req-metrics')).toEqual([]);
  });

  it('while draining, every response asks the client to close its connection', async () => {
    expect((await get('/ok', 'before-drain')).headers.get('connection')).not.toBe('close');
    app.get(DrainState).begin();
    expect((await get('/ok', 'during-drain')).headers.get('connection')).toBe('close');
  });
});
