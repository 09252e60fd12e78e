import { Logger } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { WebhookAttemptErrorClass } from '@gen/contracts';
import { LATENCY_BUCKETS, MetricsRegistry, scrapeGauges } from '@gen/observability';
import { DeliveryStatsRepository } from './delivery-stats.repository';

/** How one attempt ended: `succeeded` (a 2xx), or the dispatcher's error class. */
export type AttemptOutcomeLabel = 'succeeded' | WebhookAttemptErrorClass;

/** The dispatcher's own counters (DeliveryDispatcher.stats()). */
export interface DispatcherStats {
  inFlight: number;
  timers: number;
  due: number;
  /** New deliveries waiting for a free slot, stored already or not yet. */
  waitingNew: number;
  started: number;
  lateOver100ms: number;
  maxLatenessMs: number;
}

/**
 * The webhooks service's metrics.
 *
 * Read at scrape time, with no change to the dispatcher: deliveries by status and overdue
 * deliveries from the database (`gen_webhook_deliveries`, `gen_webhook_deliveries_overdue`,
 * `gen_webhook_oldest_overdue_seconds`), and the dispatcher's own `stats()` (attempts in flight,
 * waiting, started, late starts).
 *
 * Per-attempt outcomes and latency come from the dispatcher (its AttemptRunner calls
 * `attemptFinished` after each attempt, and `deliveryFinished` when a delivery succeeds or fails
 * for good; the poll reports the deliveries it fails).
 */
export abstract class DeliveryMetrics {
  abstract attemptFinished(attempt: { outcome: AttemptOutcomeLabel; durationMs: number; attemptNumber: number }): void;
  abstract deliveryFinished(outcome: 'succeeded' | 'failed'): void;
}

export class PrometheusDeliveryMetrics extends DeliveryMetrics {
  private readonly logger = new Logger('DeliveryMetrics');
  private readonly attempts: Counter<'outcome' | 'attempt'>;
  private readonly attemptDuration: Histogram<'outcome'>;
  private readonly finished: Counter<'outcome'>;

  constructor(metrics: MetricsRegistry, stats: DeliveryStatsRepository, dispatcher: () => DispatcherStats | undefined) {
    super();
    const registers = [metrics.registry];
    this.attempts = new Counter({
      name: 'gen_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (succeeded or error class) and attempt number (1-3)',
      labelNames: ['outcome', 'attempt'],
      registers,
    });
    this.attemptDuration = new Histogram({
      name: 'gen_webhook_attempt_duration_seconds',
      help: 'Webhook attempt latency, from signing to outcome',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.finished = new Counter({
      name: 'gen_webhook_deliveries_finished_total',
      help: 'Webhook deliveries finished by this process, by outcome (succeeded, failed)',
      labelNames: ['outcome'],
      registers,
    });

    scrapeGauges(metrics, {
      read: () => stats.read(),
      gauges: {
        deliveries: {
          name: 'gen_webhook_deliveries',
          help: 'Webhook deliveries by status (pending, succeeded, failed), from the database',
          labelNames: ['status'],
        },
        overdue: { name: 'gen_webhook_deliveries_overdue', help: 'Pending deliveries whose next attempt is more than 5 s overdue' },
        oldest: { name: 'gen_webhook_oldest_overdue_seconds', help: 'How late the most overdue pending delivery is' },
      },
      update: (s, gauges) => {
        for (const [status, n] of Object.entries(s.byStatus)) gauges.deliveries.set({ status }, n);
        gauges.overdue.set(s.overdue);
        gauges.oldest.set(s.oldestOverdueSeconds);
      },
      onError: (error) => this.logger.warn({ err: error }, 'Delivery statistics unavailable for this scrape'),
    });
    const fromDispatcher = (name: string, help: string, read: (s: DispatcherStats) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const s = dispatcher();
          if (s) this.set(read(s));
        },
      });
    fromDispatcher('gen_webhook_attempts_in_flight', 'Webhook attempts being sent by this process', (s) => s.inFlight);
    fromDispatcher('gen_webhook_deliveries_waiting', 'Deliveries this process holds for a later attempt or a free slot', (s) => s.timers + s.due + s.waitingNew);
    fromDispatcher('gen_webhook_attempts_started', 'Attempts started by this process since it started', (s) => s.started);
    fromDispatcher('gen_webhook_attempts_started_late', 'Attempts this process started more than 100 ms after their schedule', (s) => s.lateOver100ms);
  }

  attemptFinished(attempt: { outcome: AttemptOutcomeLabel; durationMs: number; attemptNumber: number }): void {
    this.attempts.inc({ outcome: attempt.outcome, attempt: String(attempt.attemptNumber) });
    this.attemptDuration.observe({ outcome: attempt.outcome }, Math.max(0, attempt.durationMs) / 1000);
  }

  deliveryFinished(outcome: 'succeeded' | 'failed'): void {
    this.finished.inc({ outcome });
  }
}
