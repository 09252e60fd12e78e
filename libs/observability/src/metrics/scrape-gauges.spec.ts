import { MetricsRegistry } from './metrics-registry';
import { scrapeGauges } from './scrape-gauges';

interface Stats {
  queued: number;
  processing: number;
  oldest: number;
}

function setup(read: () => Promise<Stats>) {
  const metrics = new MetricsRegistry('test', { defaultMetrics: false });
  const errors: unknown[] = [];
  scrapeGauges(metrics, {
    read,
    gauges: {
      jobs: { name: 'test_jobs', help: 'Jobs by state', labelNames: ['state'] },
      oldest: { name: 'test_oldest_seconds', help: 'Oldest job' },
    },
    update: (s, g) => {
      g.jobs.set({ state: 'queued' }, s.queued);
      g.jobs.set({ state: 'processing' }, s.processing);
      g.oldest.set(s.oldest);
    },
    onError: (error) => errors.push(error),
  });
  const scrape = async () => {
    const text = await metrics.metrics();
    // The read is forgotten on the next turn of the event loop, as between two real scrapes.
    await new Promise((resolve) => setImmediate(resolve));
    return text;
  };
  return { scrape, errors };
}

describe('scrapeGauges', () => {
  it('feeds every gauge from one read per scrape, and reads again on the next scrape', async () => {
    let reads = 0;
    const { scrape } = setup(() => {
      reads++;
      return Promise.resolve({ queued: 3 * reads, processing: 2, oldest: 1.5 });
    });
    const first = await scrape();
    expect(reads).toBe(1);
    expect(first).toContain('test_jobs{state="queued",service="test"} 3');
    expect(first).toContain('test_jobs{state="processing",service="test"} 2');
    expect(first).toContain('test_oldest_seconds{service="test"} 1.5');
    expect(await scrape()).toContain('test_jobs{state="queued",service="test"} 6');
    expect(reads).toBe(2);
  });

  it('answers the scrape when the read fails, with the last values, and reports the error', async () => {
    let fail = false;
    const { scrape, errors } = setup(() => (fail ? Promise.reject(new Error('database away')) : Promise.resolve({ queued: 4, processing: 0, oldest: 0 })));
    await scrape();
    fail = true;
    expect(await scrape()).toContain('test_jobs{state="queued",service="test"} 4');
    expect(errors).toEqual([new Error('database away')]);
  });
});
