import { EventEmitter } from 'node:events';
import { BufferedLogOutput, flushAfter, installFlushOnExit, LogSink } from './log-output';

/** A sink that records each write it is handed and each synchronous flush. */
function recordingSink(): LogSink & { writes: string[]; syncWrites: string[] } {
  return {
    writes: [],
    syncWrites: [],
    write(chunk: string) {
      this.writes.push(chunk);
    },
    flushSync(rest: string) {
      this.syncWrites.push(rest);
    },
  };
}

describe('buffered log output', () => {
  afterEach(() => jest.useRealTimers());

  it('holds lines until the buffer is full, then hands them over in one write', () => {
    jest.useFakeTimers();
    const sink = recordingSink();
    const output = new BufferedLogOutput(sink, { bufferBytes: 30, flushDelayMs: 1_000, maxPendingBytes: 1 << 20 });
    output.write('{"msg":"one"}\n');
    expect(sink.writes).toEqual([]);
    output.write('{"msg":"two"}\n');
    output.write('{"msg":"three"}\n');
    expect(sink.writes).toEqual(['{"msg":"one"}\n{"msg":"two"}\n{"msg":"three"}\n']);
  });

  it('writes a lone line once the flush delay has passed, and nothing more after it', () => {
    jest.useFakeTimers();
    const sink = recordingSink();
    const output = new BufferedLogOutput(sink, { bufferBytes: 4096, flushDelayMs: 25, maxPendingBytes: 1 << 20 });
    output.write('{"msg":"quiet"}\n');
    jest.advanceTimersByTime(24);
    expect(sink.writes).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(sink.writes).toEqual(['{"msg":"quiet"}\n']);
    jest.advanceTimersByTime(1_000);
    expect(sink.writes).toHaveLength(1);
    // The next line starts a new delay.
    output.write('{"msg":"later"}\n');
    jest.advanceTimersByTime(25);
    expect(sink.writes).toEqual(['{"msg":"quiet"}\n', '{"msg":"later"}\n']);
  });

  it('flushSync writes what is held synchronously, never through the asynchronous path', () => {
    jest.useFakeTimers();
    const sink = recordingSink();
    const output = new BufferedLogOutput(sink, { bufferBytes: 4096, flushDelayMs: 60_000, maxPendingBytes: 1 << 20 });
    output.write('{"msg":"last words"}\n');
    output.flushSync();
    expect(sink.writes).toEqual([]);
    expect(sink.syncWrites).toEqual(['{"msg":"last words"}\n']);
    // Nothing is left for the timer.
    jest.advanceTimersByTime(60_000);
    expect(sink.writes).toEqual([]);
  });

  it('flush hands what is held to the asynchronous write at once, in order', () => {
    jest.useFakeTimers();
    const sink = recordingSink();
    const output = new BufferedLogOutput(sink, { bufferBytes: 4096, flushDelayMs: 60_000, maxPendingBytes: 1 << 20 });
    output.write('{"msg":"before"}\n');
    output.write('{"level":"error"}\n');
    output.flush();
    expect(sink.writes).toEqual(['{"msg":"before"}\n{"level":"error"}\n']);
    expect(sink.syncWrites).toEqual([]);
  });

  it('an error line leaves at once, a fatal one before the call returns, others wait for the batch', () => {
    const calls: string[] = [];
    const destination = { write: () => undefined, flush: () => calls.push('flush'), flushSync: () => calls.push('flushSync') };
    for (const level of [30, 40]) flushAfter(destination, level);
    expect(calls).toEqual([]);
    flushAfter(destination, 50);
    flushAfter(destination, 60);
    expect(calls).toEqual(['flush', 'flushSync']);
  });

  it('survives a sink that cannot flush any more (stdout closed)', () => {
    const output = new BufferedLogOutput(
      {
        write: () => undefined,
        flushSync: () => {
          throw new Error('EPIPE');
        },
      },
      { bufferBytes: 4096, flushDelayMs: 25, maxPendingBytes: 1 << 20 },
    );
    output.write('x\n');
    expect(() => output.flushSync()).not.toThrow();
  });
});

/** Enough of `process` for installFlushOnExit: events, a pid, and kill() recorded instead of sent. */
class FakeProcess extends EventEmitter {
  readonly pid = 4242;
  readonly kills: Array<[number, string]> = [];
  kill(pid: number, signal: string): true {
    this.kills.push([pid, signal]);
    return true;
  }
}

describe('flush on exit and on termination signals', () => {
  function setUp() {
    const fake = new FakeProcess();
    let flushes = 0;
    installFlushOnExit({ flushSync: () => flushes++ }, fake as unknown as NodeJS.Process);
    return { fake, flushes: () => flushes };
  }

  it('flushes on exit and when the event loop empties', () => {
    const { fake, flushes } = setUp();
    fake.emit('beforeExit', 0);
    fake.emit('exit', 0);
    expect(flushes()).toBe(2);
  });

  it('a SIGTERM nobody else handles: flushes, then terminates the process with the same signal', () => {
    const { fake, flushes } = setUp();
    fake.emit('SIGTERM');
    expect(flushes()).toBe(1);
    expect(fake.kills).toEqual([[4242, 'SIGTERM']]);
    expect(fake.listenerCount('SIGTERM')).toBe(0);
  });

  it('a SIGTERM the application handles (its graceful drain): flushes first, and leaves the rest to the application', () => {
    const { fake, flushes } = setUp();
    const order: string[] = [];
    fake.on('SIGTERM', () => order.push(`application (after ${flushes()} flush)`));
    fake.emit('SIGTERM');
    expect(order).toEqual(['application (after 1 flush)']);
    expect(fake.kills).toEqual([]);
    fake.emit('SIGINT');
    expect(fake.kills).toEqual([[4242, 'SIGINT']]);
  });
});
