import { beginGeneration, checkpoint, deadlineSignal, delay } from './engine-runtime';
import type { EngineRequest } from '../ports/engine';

describe('engine runtime', () => {
  afterEach(() => jest.useRealTimers());

  it('delay resolves after the timeout', async () => {
    jest.useFakeTimers();
    const done = jest.fn();
    const p = delay(1_000, new AbortController().signal).then(done);
    await jest.advanceTimersByTimeAsync(999);
    expect(done).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toHaveBeenCalled();
  });

  it('delay rejects with the abort reason and clears its timer', async () => {
    jest.useFakeTimers();
    const controller = new AbortController();
    const p = delay(60_000, controller.signal);
    expect(jest.getTimerCount()).toBe(1);
    const reason = new Error('lease lost');
    controller.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('beginGeneration waits params.latencyMs and fails fast when already aborted', async () => {
    const controller = new AbortController();
    const req = { params: { latencyMs: 50 }, signal: controller.signal } as unknown as EngineRequest;
    const started = Date.now();
    await beginGeneration(req);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    controller.abort();
    await expect(beginGeneration(req)).rejects.toMatchObject({ name: 'AbortError' });
    await expect(checkpoint(controller.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('deadlineSignal', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('aborts with the parent’s reason when the parent aborts first', () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(parent.signal, 10_000);
    const reason = new Error('lease lost');
    parent.abort(reason);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBe(reason);
    expect(deadline.timedOut).toBe(false);
    deadline.dispose();
  });

  it('aborts with a TimeoutError when the time is up first, and says so', async () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(parent.signal, 20);
    await sleep(60);
    expect(deadline.signal.aborted).toBe(true);
    expect(deadline.signal.reason).toBeInstanceOf(DOMException);
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
    expect(deadline.timedOut).toBe(true);
    // The parent aborting later changes nothing (its listener is gone).
    parent.abort(new Error('later'));
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('is aborted at once under a parent already aborted', () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    const deadline = deadlineSignal(parent.signal, 10_000);
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as Error).message).toBe('gone');
    expect(deadline.timedOut).toBe(false);
  });

  it('once disposed, neither the timer nor the parent aborts it', async () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(parent.signal, 20);
    deadline.dispose();
    await sleep(60);
    parent.abort(new Error('after'));
    expect(deadline.signal.aborted).toBe(false);
    expect(deadline.timedOut).toBe(false);
  });

  it('takes a limit longer than a timer can wait without firing at once', async () => {
    const parent = new AbortController();
    const deadline = deadlineSignal(parent.signal, 30 * 24 * 3600 * 1000);
    await sleep(20);
    expect(deadline.signal.aborted).toBe(false);
    deadline.dispose();
  });

  it('a limit no sooner than the parent’s own is the parent itself: it ends with the parent’s reason', async () => {
    const run = new AbortController();
    const outer = deadlineSignal(run.signal, 30);
    const inner = deadlineSignal(outer.signal, 10_000);
    expect(inner.signal).toBe(outer.signal);
    await sleep(80);
    expect(inner.signal.aborted).toBe(true);
    expect((inner.signal.reason as DOMException).name).toBe('TimeoutError');
    // The outer limit fired, not the inner one.
    expect(outer.timedOut).toBe(true);
    expect(inner.timedOut).toBe(false);
    inner.dispose();
  });

  it('a limit sooner than the parent’s has its own timer, and says it timed out', async () => {
    const run = new AbortController();
    const outer = deadlineSignal(run.signal, 10_000);
    const inner = deadlineSignal(outer.signal, 20);
    expect(inner.signal).not.toBe(outer.signal);
    await sleep(60);
    expect(inner.signal.aborted).toBe(true);
    expect(inner.timedOut).toBe(true);
    expect(outer.signal.aborted).toBe(false);
    outer.dispose();
    // A run's own signal (no limit of ours) always gets a timer.
    const plain = deadlineSignal(run.signal, 10_000);
    expect(plain.signal).not.toBe(run.signal);
    plain.dispose();
  });
});
