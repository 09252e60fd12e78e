import { MetricsRegistry } from '@gen/observability';
import { EventLoopLoad } from './event-loop-load';

const newLoad = () => new EventLoopLoad(new MetricsRegistry('generation', { defaultMetrics: false }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('EventLoopLoad', () => {
  it("reads the event loop's busy share since the previous reading: near 100 % after blocking it, low after idling", async () => {
    const load = newLoad();
    await sleep(250);
    load.busyPercent();
    const until = Date.now() + 300;
    while (Date.now() < until); // this process's loop, busy
    const blocked = load.busyPercent();
    expect(blocked).toBeGreaterThanOrEqual(80);
    // Idle here, though a test worker's loop on a busy machine still has its own work (it read 32 % once in CI).
    await sleep(600);
    const idle = load.busyPercent();
    expect(idle).toBeLessThan(50);
    expect(idle).toBeLessThan(blocked - 30);
  });

  it('answers the previous reading for readings closer than 200 ms apart', async () => {
    const load = newLoad();
    await sleep(250);
    const first = load.busyPercent();
    const until = Date.now() + 100;
    while (Date.now() < until);
    expect(load.busyPercent()).toBe(first);
  });
});
