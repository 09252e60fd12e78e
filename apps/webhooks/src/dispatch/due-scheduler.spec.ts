import type { ExhaustedDelivery } from '../deliveries/delivery-attempt';
import { DueScheduler } from './due-scheduler';

/** The scheduler alone, on a fake clock, over a repository stub: what becomes due, in which order. */
describe('DueScheduler', () => {
  const T = Date.UTC(2026, 0, 1, 12, 0, 0);
  let dueBy: Array<{ id: string; at: number }>;
  let exhausted: ExhaustedDelivery[];
  let running: Set<string>;
  let dueCalls: number;
  let failed: ExhaustedDelivery[];
  let scheduler: DueScheduler;

  beforeEach(() => {
    jest.useFakeTimers({ now: T });
    dueBy = [];
    exhausted = [];
    running = new Set();
    dueCalls = 0;
    failed = [];
    scheduler = new DueScheduler(
      {
        dueBy: async () => dueBy.splice(0),
        failExhausted: async () => exhausted.splice(0),
      },
      { pollIntervalMs: 1_000, pollLimit: 2_000 },
      { isRunning: (id) => running.has(id), due: () => dueCalls++, exhausted: (d) => failed.push(...d) },
    );
  });
  afterEach(async () => {
    await scheduler.stop();
    jest.useRealTimers();
  });

  it('makes a delivery due when its time comes, and tells the dispatcher', () => {
    scheduler.schedule('wh_a', T + 2_000);
    jest.advanceTimersByTime(1_999);
    expect(scheduler.hasDue).toBe(false);
    jest.advanceTimersByTime(1);
    expect(dueCalls).toBe(1);
    expect(scheduler.takeRetries(10)).toEqual(['wh_a']);
    expect(scheduler.hasDue).toBe(false);
  });

  it('gives retries before new deliveries stored unclaimed, each in arrival order, up to the size asked', () => {
    scheduler.queueFresh('wh_new1');
    scheduler.queueFresh('wh_new2');
    scheduler.schedule('wh_r1', T);
    scheduler.schedule('wh_r2', T);
    scheduler.schedule('wh_r3', T);
    jest.advanceTimersByTime(0);
    expect(scheduler.stats()).toEqual({ timers: 0, due: 3, fresh: 2 });
    expect(scheduler.takeRetries(2)).toEqual(['wh_r1', 'wh_r2']);
    expect(scheduler.takeRetries(2)).toEqual(['wh_r3']);
    expect(scheduler.takeRetries(2)).toEqual([]);
    expect(scheduler.takeFresh(5)).toEqual(['wh_new1', 'wh_new2']);
  });

  it('schedules nothing for a delivery already running, due or queued here', () => {
    running.add('wh_running');
    scheduler.schedule('wh_running', T);
    scheduler.queueFresh('wh_fresh');
    scheduler.schedule('wh_fresh', T);
    jest.advanceTimersByTime(0);
    expect(scheduler.stats()).toEqual({ timers: 0, due: 0, fresh: 1 });
    // Due but running by the time it is taken: dropped (the attempt's own outcome schedules what follows).
    scheduler.schedule('wh_b', T);
    jest.advanceTimersByTime(0);
    running.add('wh_b');
    expect(scheduler.takeRetries(10)).toEqual([]);
  });

  it('keeps the due time learnt last: a poll read before it cannot move it', () => {
    scheduler.schedule('wh_a', T + 2_000, T + 10);
    scheduler.schedule('wh_a', T + 500, T); // the poll's older answer
    jest.advanceTimersByTime(1_000);
    expect(scheduler.hasDue).toBe(false);
    scheduler.schedule('wh_a', T + 6_000, T + 1_000); // a newer one moves it
    jest.advanceTimersByTime(1_500);
    expect(scheduler.hasDue).toBe(false);
    jest.advanceTimersByTime(3_500);
    expect(scheduler.takeRetries(1)).toEqual(['wh_a']);
  });

  it('polls for what is due soon that no timer covers, and fails deliveries whose third attempt was interrupted', async () => {
    const gone: ExhaustedDelivery = { id: 'wh_gone', jobId: null, accountId: 'a', event: 'generation.completed', url: 'https://x.example/h' };
    exhausted.push(gone);
    dueBy.push({ id: 'wh_other_replica', at: T + 300 });
    scheduler.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(failed).toEqual([gone]);
    expect(scheduler.stats().timers).toBe(1);
    await jest.advanceTimersByTimeAsync(300);
    expect(scheduler.takeRetries(5)).toEqual(['wh_other_replica']);
  });

  it('forgets everything when stopped (it stays pending in Postgres) and schedules nothing after', async () => {
    scheduler.schedule('wh_a', T + 100);
    scheduler.queueFresh('wh_b');
    await scheduler.stop();
    scheduler.schedule('wh_c', T);
    scheduler.queueFresh('wh_d');
    jest.advanceTimersByTime(1_000);
    expect(scheduler.stats()).toEqual({ timers: 0, due: 0, fresh: 0 });
    expect(dueCalls).toBe(0);
  });
});
