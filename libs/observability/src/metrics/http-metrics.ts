import { Counter, Gauge, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, MetricsRegistry } from './metrics-registry';

/** HTTP server metrics: latency by route template and status, requests in flight. */
export class HttpMetrics {
  readonly duration: Histogram<'method' | 'route' | 'status_code'>;
  readonly inFlight: Gauge;
  readonly requests: Counter<'method' | 'route' | 'status_code'>;
  /** Requests being served: a plain number per request, read into the gauge when scraped. */
  private serving = 0;

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.duration = new Histogram({
      name: 'gen_http_request_duration_seconds',
      help: 'HTTP request latency by route template and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.requests = new Counter({
      name: 'gen_http_requests_total',
      help: 'HTTP requests answered, by route template and status code',
      labelNames: ['method', 'route', 'status_code'],
      registers,
    });
    // prom-client calls collect() with the gauge as `this`.
    const self = this;
    this.inFlight = new Gauge({
      name: 'gen_http_requests_in_flight',
      help: 'HTTP requests being served',
      registers,
      collect() {
        this.set(self.serving);
      },
    });
  }

  started(): void {
    this.serving++;
  }

  finished(): void {
    this.serving--;
  }

  observe(method: string, route: string, statusCode: number, seconds: number): void {
    const labels = { method, route, status_code: String(statusCode) };
    this.duration.observe(labels, seconds);
    this.requests.inc(labels);
  }
}
