import { Logger } from '@nestjs/common';
import { PeriodicTask, PeriodicTaskOptions } from './periodic-task';

/** A run the test finishes by hand. */
function deferred(): { promise: Promise<void>; resolve(): void; reject(error: unknown): void } {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets the promise callbacks queued so far run (fake timers leave microtasks alone). */
const flush = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('PeriodicTask', () => {
  let tasks: PeriodicTask[];
  const make = (options: Partial<PeriodicTaskOptions> & Pick<PeriodicTaskOptions, 'run'>) => {
    const task = new PeriodicTask({ name: 'test task', intervalMs: 1000, onError: () => undefined, ...options });
    tasks.push(task);
    return task;
  };

  /** A task whose runs the test ends by hand (`runs[i].resolve()`). */
  const manual = () => {
    const runs: ReturnType<typeof deferred>[] = [];
    const task = make({
      run: () => {
        const d = deferred();
        runs.push(d);
        return d.promise;
      },
    });
    return { task, runs };
  };

  beforeEach(() => {
    tasks = [];
    jest.useFakeTimers();
  });
  afterEach(async () => {
    jest.useRealTimers();
    await Promise.all(tasks.map((task) => task.stop()));
  });

  it('runs every interval after start, and not before the first interval unless runAtStart', async () => {
    const run = jest.fn();
    make({ run }).start();
    expect(run).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(999);
    expect(run).toHaveBeenCalledTimes(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(3000);
    expect(run).toHaveBeenCalledTimes(4);

    const eager = jest.fn();
    make({ run: eager, runAtStart: true }).start();
    await flush();
    expect(eager).toHaveBeenCalledTimes(1);
  });

  it('never overlaps runs: the next wait starts when a run ends', async () => {
    const runs: ReturnType<typeof deferred>[] = [];
    let active = 0;
    let maxActive = 0;
    const task = make({
      run: async () => {
        const d = deferred();
        runs.push(d);
        active++;
        maxActive = Math.max(maxActive, active);
        await d.promise;
        active--;
      },
    });
    task.start();
    await jest.advanceTimersByTimeAsync(1000);
    expect(runs).toHaveLength(1);
    expect(task.running).toBe(true);
    await jest.advanceTimersByTimeAsync(5000);
    expect(runs).toHaveLength(1);
    runs[0].resolve();
    await flush();
    expect(task.running).toBe(false);
    await jest.advanceTimersByTimeAsync(999);
    expect(runs).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(runs).toHaveLength(2);
    runs[1].resolve();
    await flush();
    expect(maxActive).toBe(1);
  });

  it('runs once more right after the current run when triggered during it, however many times', async () => {
    const { task, runs } = manual();
    task.start();
    task.trigger();
    expect(runs).toHaveLength(1);
    task.trigger();
    task.trigger();
    task.trigger();
    expect(runs).toHaveLength(1);
    runs[0].resolve();
    await flush();
    expect(runs).toHaveLength(2);
    runs[1].resolve();
    await flush();
    expect(runs).toHaveLength(2);
    expect(task.running).toBe(false);
  });

  it('runNow resolves after a run that started after the call', async () => {
    const { task, runs } = manual();
    task.trigger();
    let done = false;
    const waited = task.runNow().then(() => (done = true));
    runs[0].resolve();
    await flush();
    expect(done).toBe(false);
    expect(runs).toHaveLength(2);
    runs[1].resolve();
    await waited;
    expect(done).toBe(true);
  });

  it('logs a failed run (thrown or rejected) and keeps running', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const task = make({
      onError: (error) => errors.push(error),
      run: () => {
        calls++;
        if (calls === 1) throw new Error('sync');
        if (calls === 2) return Promise.reject(new Error('async'));
        return undefined;
      },
    });
    task.start();
    await jest.advanceTimersByTimeAsync(3000);
    expect(calls).toBe(3);
    expect(errors.map((e) => (e as Error).message)).toEqual(['sync', 'async']);
  });

  it('survives an error handler that throws, and logs by default', async () => {
    const throwing = make({
      run: () => Promise.reject(new Error('boom')),
      onError: () => {
        throw new Error('handler');
      },
    });
    await expect(throwing.runNow()).resolves.toBeUndefined();
    const logError = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const logged = new PeriodicTask({ name: 'default logging', intervalMs: 10, run: () => Promise.reject(new Error('boom')) });
      tasks.push(logged);
      await expect(logged.runNow()).resolves.toBeUndefined();
      expect(logError).toHaveBeenCalledWith({ err: new Error('boom') }, 'default logging failed');
    } finally {
      logError.mockRestore();
    }
  });

  it('stop clears the timer, waits for the run under way and drops a requested run', async () => {
    const { task, runs } = manual();
    task.start();
    await jest.advanceTimersByTimeAsync(1000);
    task.trigger();
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await flush();
    expect(stopped).toBe(false);
    runs[0].resolve();
    await stopping;
    expect(stopped).toBe(true);
    await jest.advanceTimersByTimeAsync(10_000);
    task.trigger();
    await flush();
    expect(runs).toHaveLength(1);
    await expect(task.runNow()).resolves.toBeUndefined();

    task.start();
    await jest.advanceTimersByTimeAsync(1000);
    expect(runs).toHaveLength(2);
    runs[1].resolve();
  });

  it('spreads each wait by the jitter, and unrefs its timer', async () => {
    const random = jest.spyOn(Math, 'random');
    try {
      const run = jest.fn();
      random.mockReturnValue(0); // factor 1 - jitter
      const task = make({ run, jitter: 0.25 });
      task.start();
      await jest.advanceTimersByTimeAsync(749);
      expect(run).toHaveBeenCalledTimes(0);
      random.mockReturnValue(1); // factor 1 + jitter
      await jest.advanceTimersByTimeAsync(1);
      expect(run).toHaveBeenCalledTimes(1);
      await jest.advanceTimersByTimeAsync(1249);
      expect(run).toHaveBeenCalledTimes(1);
      await jest.advanceTimersByTimeAsync(1);
      expect(run).toHaveBeenCalledTimes(2);
    } finally {
      random.mockRestore();
    }
    const unref = jest.spyOn(global, 'setTimeout');
    make({ run: () => undefined }).start();
    const handle = unref.mock.results.at(-1)?.value as NodeJS.Timeout;
    expect(handle.hasRef()).toBe(false);
    unref.mockRestore();
  });

  it('refuses a bad interval or jitter', () => {
    expect(() => new PeriodicTask({ name: 'x', intervalMs: 0, run: () => undefined })).toThrow(RangeError);
    expect(() => new PeriodicTask({ name: 'x', intervalMs: 10, jitter: 1.5, run: () => undefined })).toThrow(RangeError);
  });
});
