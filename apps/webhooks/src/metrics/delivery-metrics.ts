import { Counter, Gauge, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, MetricsRegistry } from '@gen/observability';

/**
 * How one delivery attempt ended:
 * - `success`: a 2xx response;
 * - `http_error`: a complete non-2xx response (3xx included: redirects are not followed);
 * - `timeout`: no complete response within the attempt timeout;
 * - `network_error`: DNS failure, connection refused or reset, TLS error;
 * - `blocked`: refused by the URL/IP policy (SSRF) before any connection.
 */
export type AttemptOutcome = 'success' | 'http_error' | 'timeout' | 'network_error' | 'blocked';

/** How a delivery (all its attempts) ended. */
export type DeliveryOutcome = 'delivered' | 'failed' | 'blocked' | 'skipped';

/**
 * The metric hooks of the webhook dispatcher. The dispatcher (apps/webhooks) injects
 * `DeliveryMetrics` (provided by WebhooksModule) and calls:
 *
 * - `attemptStarted()` right before sending an attempt, and `attemptFinished(...)` once it has an
 *   outcome (always: also on timeout, network error and policy refusal; use try/finally);
 * - `deliveryFinished(outcome)` once per delivery when it reaches a final state: `delivered` on a
 *   2xx, `failed` after the last attempt failed, `blocked` when the destination is refused,
 *   `skipped` when there was nothing to send (no URL);
 * - `retryScheduled()` each time a failed attempt schedules the next one.
 *
 * These calls are cheap and never throw; they hold no state the dispatcher depends on.
 */
export abstract class DeliveryMetrics {
  abstract attemptStarted(): void;
  abstract attemptFinished(attempt: { outcome: AttemptOutcome; durationMs: number; attemptNumber: number; statusCode?: number }): void;
  abstract deliveryFinished(outcome: DeliveryOutcome): void;
  abstract retryScheduled(): void;
}

/** The Prometheus implementation of the dispatcher's hooks. */
export class PrometheusDeliveryMetrics extends DeliveryMetrics {
  private readonly attempts: Counter<'outcome' | 'attempt'>;
  private readonly attemptDuration: Histogram<'outcome'>;
  private readonly deliveries: Counter<'outcome'>;
  private readonly retries: Counter;
  private readonly inFlight: Gauge;

  constructor(metrics: MetricsRegistry) {
    super();
    const registers = [metrics.registry];
    this.attempts = new Counter({
      name: 'gen_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome and attempt number (1-3)',
      labelNames: ['outcome', 'attempt'],
      registers,
    });
    this.attemptDuration = new Histogram({
      name: 'gen_webhook_attempt_duration_seconds',
      help: 'Webhook attempt latency, from sending to outcome',
      labelNames: ['outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.deliveries = new Counter({
      name: 'gen_webhook_deliveries_total',
      help: 'Webhook deliveries by final outcome (delivered, failed, blocked, skipped)',
      labelNames: ['outcome'],
      registers,
    });
    this.retries = new Counter({ name: 'gen_webhook_retries_scheduled_total', help: 'Webhook retries scheduled', registers });
    this.inFlight = new Gauge({ name: 'gen_webhook_attempts_in_flight', help: 'Webhook attempts being sent now', registers });
  }

  attemptStarted(): void {
    this.inFlight.inc();
  }

  attemptFinished(attempt: { outcome: AttemptOutcome; durationMs: number; attemptNumber: number }): void {
    this.inFlight.dec();
    this.attempts.inc({ outcome: attempt.outcome, attempt: String(attempt.attemptNumber) });
    this.attemptDuration.observe({ outcome: attempt.outcome }, Math.max(0, attempt.durationMs) / 1000);
  }

  deliveryFinished(outcome: DeliveryOutcome): void {
    this.deliveries.inc({ outcome });
  }

  retryScheduled(): void {
    this.retries.inc();
  }
}
