import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { Msg, NatsConnection } from 'nats';
import { connectNats, TurnCoalescingTransport } from './nats-connect';

const NATS_URL = process.env.DIST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** The socket under a connection (nats.js keeps it on its protocol handler's transport). */
function socketOf(nc: NatsConnection): Socket {
  const transport = (nc as unknown as { protocol: { transport: unknown } }).protocol.transport;
  expect(transport).toBeInstanceOf(TurnCoalescingTransport);
  return (transport as TurnCoalescingTransport).socket;
}

/** Counts the socket's writes to the kernel: one per `_write` and one per `_writev`. */
function countWrites(socket: Socket): { writes: number } {
  const counter = { writes: 0 };
  const target = socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
  for (const method of ['_write', '_writev'] as const) {
    const original = target[method].bind(socket);
    target[method] = (...args: unknown[]) => {
      counter.writes += 1;
      return original(...args);
    };
  }
  return counter;
}

/** Collects what a subscription receives until `count` messages came. */
function collect(nc: NatsConnection, subject: string, count: number): Promise<string[]> {
  const received: string[] = [];
  return new Promise((resolve) => {
    nc.subscribe(subject, {
      callback: (_error, msg: Msg) => {
        received.push(msg.string());
        if (received.length === count) resolve(received);
      },
    });
  });
}

describe('connectNats: one socket write per event-loop turn', () => {
  const subject = `coalesce${randomBytes(4).toString('hex')}`;
  let sender: NatsConnection;
  let receiver: NatsConnection;

  beforeEach(async () => {
    sender = await connectNats({ servers: NATS_URL, name: 'coalesce-spec-sender' });
    receiver = await connectNats({ servers: NATS_URL, name: 'coalesce-spec-receiver' });
  });

  afterEach(async () => {
    await Promise.all([sender.close(), receiver.close()]);
  });

  it('sends what several callbacks of one turn published in one write, every message in order', async () => {
    const arriving = collect(receiver, `${subject}.turn`, 40);
    await receiver.flush();
    const writes = countWrites(socketOf(sender));
    // Forty immediates queued together run in one check phase: forty callbacks of one turn, each of
    // which nats.js alone would flush in a write of its own (a microtask apart). Timers would not do:
    // Node reads the clock as it arms each one, so on a slow host forty timers armed in a loop can
    // fall due in two turns.
    await new Promise<void>((resolve) => {
      for (let i = 0; i < 40; i += 1) setImmediate(() => sender.publish(`${subject}.turn`, String(i)));
      setImmediate(resolve);
    });
    expect(await arriving).toEqual(Array.from({ length: 40 }, (_, i) => String(i)));
    expect(writes.writes).toBe(1);
  });

  it('still writes once per turn when turns follow each other', async () => {
    const arriving = collect(receiver, `${subject}.turns`, 3);
    await receiver.flush();
    const writes = countWrites(socketOf(sender));
    for (let i = 0; i < 3; i += 1) {
      sender.publish(`${subject}.turns`, String(i));
      await new Promise<void>((resolve) => setTimeout(resolve, 5));
    }
    expect(await arriving).toEqual(['0', '1', '2']);
    expect(writes.writes).toBe(3);
  });

  it('answers a request between two connections made here', async () => {
    receiver.subscribe(`${subject}.echo`, { callback: (_error, msg) => msg.respond(`echo ${msg.string()}`) });
    await receiver.flush();
    const reply = await sender.request(`${subject}.echo`, 'hello', { timeout: 5_000 });
    expect(reply.string()).toBe('echo hello');
  });

  it('delivers what the turn wrote before close (a reply sent just before a draining server closes)', async () => {
    const arriving = collect(receiver, `${subject}.close`, 2);
    await receiver.flush();
    sender.publish(`${subject}.close`, 'a');
    sender.publish(`${subject}.close`, 'b');
    // nats.js hands its buffer to the transport in a microtask; what it still holds at close() it
    // drops with or without this transport (drain() is what flushes it).
    await Promise.resolve();
    await sender.close();
    expect(await arriving).toEqual(['a', 'b']);
  });
});
