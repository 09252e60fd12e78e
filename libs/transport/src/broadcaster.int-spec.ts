import { randomBytes } from 'node:crypto';
import type { NatsConnection } from 'nats';
import { Broadcasts } from '@gen/contracts';
import { NatsBroadcaster } from './broadcaster';
import { connectNats } from './nats-connect';
import type { NatsTransportConfig } from './nats.config';

const NATS_URL = process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** Resolves once `check` is true (read every 10 ms), or fails after 5 s. */
async function until(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A key change as the gateway's caches receive it (a valid `api_key.changed` broadcast). */
const keyChanged = (n: number) => ({ apiKeyId: `key-${n}`, lookupId: `lookup-${n}` });

describe('NatsBroadcaster: one NATS subscription per topic, whatever the number of listeners', () => {
  const token = randomBytes(4).toString('hex');
  const config: NatsTransportConfig = { url: NATS_URL, service: 'broadcaster-spec', subjectPrefix: `bcast${token}.`, streamName: 'unused', requestTimeoutMs: 5_000 };
  let receiving: NatsConnection;
  let sending: NatsConnection;
  let listener: NatsBroadcaster;
  let sender: NatsBroadcaster;
  /** Messages NATS delivered to the listening process's connection (one per subscription a message matched). */
  const delivered = () => receiving.stats().inMsgs;

  beforeEach(async () => {
    receiving = await connectNats({ servers: NATS_URL, name: 'broadcaster-spec-listener' });
    sending = await connectNats({ servers: NATS_URL, name: 'broadcaster-spec-sender' });
    listener = new NatsBroadcaster(config, { connection: () => Promise.resolve(receiving) });
    sender = new NatsBroadcaster(config, { connection: () => Promise.resolve(sending) });
  });

  afterEach(async () => {
    listener.onApplicationShutdown();
    await Promise.all([receiving.close(), sending.close()]);
  });

  it('delivers each message once to the process and to every listener of the topic, in order', async () => {
    const seen: Array<[string, unknown]> = [];
    const stops = ['a', 'b', 'c'].map((name) => listener.subscribe(Broadcasts.apiKeyChanged, (payload) => seen.push([name, payload])));
    await receiving.flush();
    const before = delivered();
    await sender.publishAndFlush(Broadcasts.apiKeyChanged, keyChanged(1));
    await until('three calls', () => seen.length === 3);
    expect(seen).toEqual([
      ['a', keyChanged(1)],
      ['b', keyChanged(1)],
      ['c', keyChanged(1)],
    ]);
    // One copy reached the process (three subscriptions would have made it three), decoded once for all.
    expect(delivered() - before).toBe(1);
    expect(seen[0][1]).toBe(seen[2][1]);
    stops.forEach((stop) => stop());
  });

  it('keeps the other listeners when one leaves or throws, and subscribes again after the last one left', async () => {
    const seen: string[] = [];
    const stopA = listener.subscribe(Broadcasts.apiKeyChanged, () => seen.push('a'));
    const stopThrows = listener.subscribe(Broadcasts.apiKeyChanged, () => {
      throw new Error('a listener failed');
    });
    const stopB = listener.subscribe(Broadcasts.apiKeyChanged, () => seen.push('b'));
    await receiving.flush();
    await sender.publishAndFlush(Broadcasts.apiKeyChanged, keyChanged(1));
    await until('both calls', () => seen.length === 2);
    expect(seen).toEqual(['a', 'b']);

    stopA();
    stopThrows();
    await sender.publishAndFlush(Broadcasts.apiKeyChanged, keyChanged(2));
    await until('b alone', () => seen.length === 3);
    expect(seen).toEqual(['a', 'b', 'b']);

    // The last listener left: the subscription is gone, nothing more reaches the process.
    stopB();
    await receiving.flush();
    const before = delivered();
    await sender.publishAndFlush(Broadcasts.apiKeyChanged, keyChanged(3));
    await receiving.flush();
    expect(delivered()).toBe(before);

    const later: unknown[] = [];
    const stopLater = listener.subscribe(Broadcasts.apiKeyChanged, (payload) => later.push(payload));
    await receiving.flush();
    await sender.publishAndFlush(Broadcasts.apiKeyChanged, keyChanged(4));
    await until('the new listener', () => later.length === 1);
    expect(later).toEqual([keyChanged(4)]);
    expect(seen).toHaveLength(3);
    stopLater();
  });

  it('never subscribes for a listener that left before the connection was there', async () => {
    let open!: (nc: NatsConnection) => void;
    const late = new NatsBroadcaster(config, { connection: () => new Promise<NatsConnection>((resolve) => (open = resolve)) });
    const seen: unknown[] = [];
    const stop = late.subscribe(Broadcasts.apiKeyChanged, (payload) => seen.push(payload));
    stop();
    open(receiving);
    await receiving.flush();
    const before = delivered();
    await sender.publishAndFlush(Broadcasts.apiKeyChanged, keyChanged(5));
    await receiving.flush();
    expect(delivered()).toBe(before);
    expect(seen).toEqual([]);
  });
});
