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
    expect(load.busyPercent()).toBeGreaterThanOrEqual(80);
    await sleep(300);
    expect(load.busyPercent()).toBeLessThan(30);
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
