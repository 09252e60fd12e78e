import { Logger } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { MetricsRegistry, QUEUE_BUCKETS } from '@gen/observability';

/** Where the scrape-time gauges read from (ParkedJobsRepository): metrics sit below the job runtime and do not import it. */
export interface UpstreamCounts {
  parkedByModel(): Promise<ReadonlyMap<string, number>>;
  slotsInUse(): Promise<ReadonlyMap<string, number>>;
}

/** The limits a binding sets, by binding (model id), for the in-flight gauge's `limit` series. */
export type BindingCaps = () => ReadonlyMap<string, number>;

/**
 * Metrics of provider work (docs/design/jobs.md, "Waiting upstream"). The gauges of parked jobs and of
 * slots in use are read from the database at scrape time, so every replica reports the same numbers
 * (aggregate them with max(), not sum()); histograms and counters count what this process did.
 */
export class UpstreamMetrics {
  private readonly logger = new Logger(UpstreamMetrics.name);
  private readonly upstreamTime: Histogram<'model'>;
  private readonly slotWaitTime: Histogram<'binding'>;
  private readonly checksTotal: Counter<'model' | 'result'>;
  private readonly throttledTotal: Counter<'binding'>;
  private repository?: UpstreamCounts;
  private caps: BindingCaps = () => new Map();

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.upstreamTime = new Histogram({
      name: 'gen_job_upstream_seconds',
      help: 'Time from the submit to a provider to the end of its job, as seen by the checks (parked jobs)',
      labelNames: ['model'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.slotWaitTime = new Histogram({
      name: 'gen_binding_slot_wait_seconds',
      help: "Time a job waited for a slot of its binding's maxInFlight (0 when one was free at once)",
      labelNames: ['binding'],
      buckets: [0, ...QUEUE_BUCKETS],
      registers,
    });
    this.checksTotal = new Counter({
      name: 'gen_upstream_checks_total',
      help: 'Status checks of parked jobs made by this process, by result (pending, ended, not-now, failed)',
      labelNames: ['model', 'result'],
      registers,
    });
    this.throttledTotal = new Counter({
      name: 'gen_binding_throttled_total',
      help: 'Provider 429 answers that put a binding into its shared backoff',
      labelNames: ['binding'],
      registers,
    });
    const waiting = new Gauge({
      name: 'gen_jobs_waiting_upstream',
      help: 'Parked provider jobs (processing, waiting on their provider with no worker), by model',
      labelNames: ['model'],
      registers,
      collect: async () => {
        if (!this.repository) return;
        try {
          const counts = await this.repository.parkedByModel();
          waiting.reset();
          for (const [model, n] of counts) waiting.set({ model }, n);
        } catch (error) {
          this.logger.warn({ err: error }, 'Parked job counts unavailable for this scrape');
        }
      },
    });
    const inFlight = new Gauge({
      name: 'gen_binding_in_flight',
      help: "Upstream jobs in flight of each binding with maxInFlight, over every replica, and its limit (series kind=limit)",
      labelNames: ['binding', 'kind'],
      registers,
      collect: async () => {
        if (!this.repository) return;
        try {
          const used = await this.repository.slotsInUse();
          inFlight.reset();
          for (const [binding, limit] of this.caps()) {
            inFlight.set({ binding, kind: 'used' }, used.get(binding) ?? 0);
            inFlight.set({ binding, kind: 'limit' }, limit);
          }
        } catch (error) {
          this.logger.warn({ err: error }, 'Binding slot counts unavailable for this scrape');
        }
      },
    });
  }

  /** Where the scrape-time gauges read from (set once the repository and the catalogue exist). */
  readFrom(repository: UpstreamCounts, caps: BindingCaps): void {
    this.repository = repository;
    this.caps = caps;
  }

  upstreamEnded(model: string, upstreamAt: Date | null): void {
    if (upstreamAt) this.upstreamTime.observe({ model }, Math.max(0, (Date.now() - upstreamAt.getTime()) / 1000));
  }

  checked(model: string, result: 'pending' | 'ended' | 'not-now' | 'failed'): void {
    this.checksTotal.inc({ model, result });
  }

  slotWait(binding: string, seconds: number): void {
    this.slotWaitTime.observe({ binding }, seconds);
  }

  throttled(binding: string): void {
    this.throttledTotal.inc({ binding });
  }
}
