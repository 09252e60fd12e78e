import { Gauge, GaugeConfiguration } from 'prom-client';
import type { MetricsRegistry } from './metrics-registry';

/** One gauge of `scrapeGauges`: its configuration but `registers` and `collect`, which the helper sets. */
export type ScrapeGaugeConfiguration = Omit<GaugeConfiguration<string>, 'registers' | 'collect'>;

/**
 * Gauges read from the database at scrape time with one query per scrape for all of them: prom-client
 * awaits each gauge's collect(), so they share the read in flight, which is forgotten once this scrape's
 * collects have run (the next scrape reads again). A read that fails goes to `onError` (the scrape
 * still answers, with the gauges' last values).
 */
export function scrapeGauges<K extends string, S>(
  metrics: MetricsRegistry,
  options: {
    read: () => Promise<S>;
    /** The gauges by a key of the caller's choosing, registered in this order. */
    gauges: Record<K, ScrapeGaugeConfiguration>;
    /** Sets the gauges from one read. */
    update: (stats: S, gauges: Record<K, Gauge<string>>) => void;
    onError: (error: unknown) => void;
  },
): Record<K, Gauge<string>> {
  const registers = [metrics.registry];
  const gauges = {} as Record<K, Gauge<string>>;
  let pending: Promise<void> | undefined;
  const collect = async () => {
    pending ??= options
      .read()
      .then((stats) => options.update(stats, gauges))
      .catch(options.onError)
      .finally(() => setImmediate(() => (pending = undefined)));
    await pending;
  };
  for (const key of Object.keys(options.gauges) as K[]) {
    gauges[key] = new Gauge({ ...options.gauges[key], registers, collect });
  }
  return gauges;
}
