import { createServer } from 'node:net';
import { Controller, INestMicroservice, Module, UseFilters } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClientNats, MessagePattern, Payload, ServerNats } from '@nestjs/microservices';
import { DomainError, RpcErrorFilter } from '@gen/errors';
import { connect, Msg, NatsConnection } from 'nats';
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lastValueFrom } from 'rxjs';
import { NatsTransportConfig, requestSubject } from './nats.config';
import { NatsJetStreamServer } from './nats.server';
import { dependencyTimeoutMessage, NatsRpcClient, NotDeliveredError } from './rpc-client';

const NATS_URL = process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222';
const NATS_SERVER = '/usr/sbin/nats-server';
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Slow requests release their answer when the test says so. */
const gates: Array<() => void> = [];

@Controller()
@UseFilters(RpcErrorFilter)
class Handlers {
  @MessagePattern('t.echo')
  async echo(@Payload() request: { n: number }): Promise<{ n: number; at: Date }> {
    return { n: request.n, at: new Date('2026-01-02T03:04:05.000Z') };
  }

  @MessagePattern('t.fail')
  async fail(): Promise<never> {
    throw new DomainError('not_found', 'No generation with that id.');
  }

  @MessagePattern('t.slow')
  async slow(): Promise<string> {
    await new Promise<void>((resolve) => gates.push(resolve));
    return 'finished';
  }
}

@Module({ controllers: [Handlers] })
class HandlersModule {}

/** NatsJetStreamServer answering requests the way Nest's ServerNats does (RxJS, nextTick), as it did before. */
class NestHandledServer extends NatsJetStreamServer {
  override handleMessage(pattern: string, message: Msg): Promise<void> {
    return ServerNats.prototype.handleMessage.call(this, pattern, message) as Promise<void>;
  }
}

/** Request/reply over a real NATS server: the NatsRpcClient and NatsJetStreamServer of distributed mode. */
describe('NATS request/reply', () => {
  const config: NatsTransportConfig = {
    url: NATS_URL,
    service: 'rpc-spec',
    subjectPrefix: `rpc${randomBytes(4).toString('hex')}.`,
    streamName: 'UNUSED',
    requestTimeoutMs: 5_000,
  };
  let server: NatsJetStreamServer;
  let app: INestMicroservice;
  const client = new NatsRpcClient({ ...config, service: 'rpc-spec-client' });
  /** Sees every request on the wire (a plain subscriber of the request subjects, beside the server's queue group). */
  let spy: NatsConnection;
  const seen: Msg[] = [];

  beforeAll(async () => {
    spy = await connect({ servers: NATS_URL });
    spy.subscribe(`${config.subjectPrefix}rpc.>`, { callback: (_error, message) => seen.push(message) });
    await spy.flush();
    server = new NatsJetStreamServer(config, 2_000);
    app = await NestFactory.createMicroservice(HandlersModule, { strategy: server, logger: false });
    await app.listen();
  });
  afterAll(async () => {
    await client.onApplicationShutdown();
    await app?.close();
    await spy?.close();
  });

  it('answers through the Nest handler, dates as strings', async () => {
    await expect(client.request('t.echo', { n: 7 })).resolves.toEqual({ n: 7, at: '2026-01-02T03:04:05.000Z' });
  });

  it('many requests at once share one reply subscription and carry no headers', async () => {
    // The spy's copy of an earlier test's request can still be on its way: a round trip drains it first.
    await spy.flush();
    seen.length = 0;
    const replies = await Promise.all(Array.from({ length: 200 }, (_, n) => client.request<{ n: number }>('t.echo', { n })));
    expect(replies.map((r) => r.n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
    await spy.flush();
    const echoes = seen.filter((m) => m.subject === requestSubject(config, 't.echo'));
    expect(echoes).toHaveLength(200);
    // nats.js's muxed requests: `_INBOX.<one id for the connection>.<one token per request>`.
    const inboxes = new Set(echoes.map((m) => m.reply?.split('.').slice(0, 2).join('.')));
    expect(inboxes.size).toBe(1);
    expect(new Set(echoes.map((m) => m.reply)).size).toBe(200);
    expect(echoes.every((m) => m.headers === undefined)).toBe(true);
  });

  it("a handler's domain error arrives as the same DomainError", async () => {
    const failure = client.request('t.fail', {});
    await expect(failure).rejects.toBeInstanceOf(DomainError);
    await expect(failure).rejects.toMatchObject({ code: 'not_found', message: 'No generation with that id.' });
  });

  it('no replica subscribed: NotDeliveredError (the request certainly had no effect)', async () => {
    // Under a prefix of its own: the spy above would otherwise count as a subscriber.
    const alone = new NatsRpcClient({ ...config, subjectPrefix: `nobody${randomBytes(4).toString('hex')}.` });
    try {
      await expect(alone.request('t.echo', {})).rejects.toBeInstanceOf(NotDeliveredError);
    } finally {
      await alone.onApplicationShutdown();
    }
  });

  it('no answer in time: service_unavailable, naming the subject', async () => {
    const late = client.request('t.slow', {}, 300);
    await expect(late).rejects.toMatchObject({ code: 'service_unavailable', message: dependencyTimeoutMessage('t.slow') });
    gates.splice(0).forEach((open) => open());
  });

  it("Nest's own ClientNats can call this server, and this client can call Nest's ServerNats (a rolling upgrade mixes them)", async () => {
    const nestClient = new ClientNats({ servers: NATS_URL });
    try {
      await expect(lastValueFrom(nestClient.send(requestSubject(config, 't.echo'), { n: 1 }))).resolves.toEqual({ n: 1, at: '2026-01-02T03:04:05.000Z' });
      await expect(lastValueFrom(nestClient.send(requestSubject(config, 't.fail'), {}))).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await nestClient.close();
    }
    // The server before this change: ServerNats's own message handling on the same subscriptions.
    const previous = { ...config, subjectPrefix: `rpc${randomBytes(4).toString('hex')}.` };
    const previousApp = await NestFactory.createMicroservice(HandlersModule, { strategy: new NestHandledServer(previous), logger: false });
    await previousApp.listen();
    const newClient = new NatsRpcClient({ ...previous, service: 'rpc-spec-new-client' });
    try {
      await expect(newClient.request('t.echo', { n: 2 })).resolves.toEqual({ n: 2, at: '2026-01-02T03:04:05.000Z' });
      await expect(newClient.request('t.fail', {})).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await newClient.onApplicationShutdown();
      await previousApp.close();
    }
  });

  it('a client closing fails its requests still waiting at once, as unavailable', async () => {
    const closing = new NatsRpcClient({ ...config, service: 'rpc-spec-closing' });
    const waiting = closing.request('t.slow', {}, 30_000);
    while (gates.length === 0) await sleep(10);
    await closing.onApplicationShutdown();
    // Not its 30 s timeout (that would say "did not answer in time").
    await expect(waiting).rejects.toMatchObject({ code: 'service_unavailable', message: 'A dependency is unavailable (t.slow); retry shortly.' });
    gates.splice(0).forEach((open) => open());
  });

  it('on close, a request already being handled still gets its answer', async () => {
    const pending = client.request<string>('t.slow', {});
    while (gates.length === 0) await sleep(10);
    const closing = server.close();
    await sleep(100);
    gates.splice(0).forEach((open) => open());
    await expect(pending).resolves.toBe('finished');
    await closing;
  });
});

/** A nats-server of this test's own, to take it away and bring it back. */
async function startNatsServer(port: number): Promise<ChildProcess> {
  const child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nats-server did not start:\n${output}`)), 10_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('Server is ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
  });
  return child;
}

async function stopNatsServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A port nothing listens on now (this lib builds on no other, so not @gen/persistence's helper). */
function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });
}

describe('NATS request/reply while the NATS server is away', () => {
  it('fails fast as service_unavailable while disconnected, and works again once NATS is back', async () => {
    const port = await freePort();
    const config: NatsTransportConfig = { url: `nats://127.0.0.1:${port}`, service: 'outage-spec', subjectPrefix: 'o.', streamName: 'UNUSED', requestTimeoutMs: 3_000 };
    let nats = await startNatsServer(port);
    const server = new NatsJetStreamServer(config, 1_000);
    const app = await NestFactory.createMicroservice(HandlersModule, { strategy: server, logger: false });
    await app.listen();
    const client = new NatsRpcClient({ ...config, service: 'outage-spec-client' });
    try {
      await expect(client.request('t.echo', { n: 1 })).resolves.toMatchObject({ n: 1 });
      await stopNatsServer(nats);
      // The client notices the disconnection (a request sent just before it does times out); from
      // then on requests do not wait for their timeout.
      let outcome: unknown;
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        const started = Date.now();
        outcome = await client.request('t.echo', { n: 2 }).catch((error: unknown) => error);
        if (outcome instanceof DomainError && Date.now() - started < 1_000) break;
        await sleep(100);
      }
      expect(outcome).toBeInstanceOf(DomainError);
      expect(outcome).toMatchObject({ code: 'service_unavailable', message: 'A dependency is unavailable (t.echo); retry shortly.' });
      await expect(client.connection()).rejects.toThrow('NATS connection lost');

      nats = await startNatsServer(port);
      let reply: unknown;
      const back = Date.now() + 20_000;
      while (Date.now() < back && reply === undefined) {
        reply = await client.request('t.echo', { n: 3 }).catch(() => undefined);
        if (reply === undefined) await sleep(200);
      }
      expect(reply).toMatchObject({ n: 3 });
    } finally {
      await client.onApplicationShutdown();
      await app.close();
      await stopNatsServer(nats);
    }
  }, 60_000);
});
