import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's Prometheus registry. One per Nest application (not prom-client's global one), so
 * several applications in one process (tests, standalone) never collide; every metric of every
 * service module is registered here and served at /metrics.
 */
export class MetricsRegistry {
  readonly registry = new Registry();

  constructor(service: string, options: { defaultMetrics?: boolean } = {}) {
    this.registry.setDefaultLabels({ service });
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'gen_' });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  metrics(): Promise<string> {
    return this.registry.metrics();
  }
}

/** Seconds between two instants (for histograms that are observed in seconds). */
export function secondsBetween(from: Date | string | number, to: Date | number = Date.now()): number {
  const start = from instanceof Date ? from.getTime() : typeof from === 'string' ? Date.parse(from) : from;
  const end = to instanceof Date ? to.getTime() : to;
  return Math.max(0, (end - start) / 1000);
}

/** Latency buckets (seconds) for HTTP requests and webhook attempts. */
export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Buckets (seconds) for queue waits and job run times, which range from milliseconds to minutes. */
export const QUEUE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
