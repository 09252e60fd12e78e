import { Counter, Gauge } from 'prom-client';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { MetricsRegistry } from '@gen/observability';

/** Readings closer together than this return the previous one: a shorter window is mostly noise. */
const MIN_WINDOW_MS = 200;

/**
 * How busy this process's event loop has been lately, in percent of the time: the batch feeder
 * admits lines only while it is under BATCH_YIELD_BUSY_PERCENT (docs/design/batches.md, "Yielding to
 * a busy process"). Read at each feeder pass: the utilization since the previous reading (at least
 * 200 ms). Metrics: the last reading, and the passes that yielded.
 */
export class EventLoopLoad {
  private since: EventLoopUtilization = performance.eventLoopUtilization();
  private sinceAt = performance.now();
  private last = 0;
  private readonly yields: Counter;
  /** Passes that admitted nothing because this process was busy. */
  yielded = 0;

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    const load = () => this.last;
    new Gauge({
      name: 'gen_event_loop_busy_percent',
      help: "This process's event-loop utilization at the batch feeder's last reading (percent of the time)",
      registers,
      collect() {
        this.set(load());
      },
    });
    this.yields = new Counter({ name: 'gen_batch_feeder_yields_total', help: 'Batch feeder passes that admitted no line because this process was busy', registers });
  }

  busyPercent(): number {
    const now = performance.now();
    if (now - this.sinceAt < MIN_WINDOW_MS) return this.last;
    const current = performance.eventLoopUtilization();
    this.last = Math.round(performance.eventLoopUtilization(current, this.since).utilization * 100);
    this.since = current;
    this.sinceAt = now;
    return this.last;
  }

  /** The feeder let a pass go by for interactive work. */
  yieldedPass(): void {
    this.yielded++;
    this.yields.inc();
  }
}
