import { beginGeneration, checkpoint, delay } from './engine-runtime';
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
