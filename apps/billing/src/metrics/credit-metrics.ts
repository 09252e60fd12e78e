import { Logger } from '@nestjs/common';
import { Counter } from 'prom-client';
import { MetricsRegistry, scrapeGauges } from '@gen/observability';
import { HoldStatsRepository } from './hold-stats.repository';

export type HoldOutcome = 'reserved' | 'insufficient' | 'capped' | 'captured' | 'released';

/**
 * The billing service's metrics: credit holds by outcome (counts and credits) from this process,
 * and the open holds (count, credits, oldest age) from the database at scrape time.
 */
export class CreditMetrics {
  private readonly logger = new Logger(CreditMetrics.name);
  private readonly holds: Counter<'outcome'>;
  private readonly credits: Counter<'outcome'>;

  constructor(metrics: MetricsRegistry, stats: HoldStatsRepository) {
    const registers = [metrics.registry];
    this.holds = new Counter({
      name: 'gen_billing_holds_total',
      help: "Credit holds by outcome: reserved, insufficient (refused), capped (refused: the key's spending cap), captured (charged), released (refunded)",
      labelNames: ['outcome'],
      registers,
    });
    this.credits = new Counter({
      name: 'gen_billing_credits_total',
      help: 'Credits moved by hold outcome: reserved, captured, released',
      labelNames: ['outcome'],
      registers,
    });
    scrapeGauges(metrics, {
      read: () => stats.read(),
      gauges: {
        open: { name: 'gen_billing_open_holds', help: 'Holds neither captured nor released' },
        held: { name: 'gen_billing_held_credits', help: 'Credits held by open holds' },
        oldest: { name: 'gen_billing_oldest_open_hold_age_seconds', help: 'Age of the oldest open hold' },
      },
      update: (s, gauges) => {
        gauges.open.set(s.openHolds);
        gauges.held.set(s.heldCredits);
        gauges.oldest.set(s.oldestOpenHoldSeconds);
      },
      onError: (error) => this.logger.warn({ err: error }, 'Hold statistics unavailable for this scrape'),
    });
  }

  hold(outcome: HoldOutcome, amount = 0): void {
    this.holds.inc({ outcome });
    if (amount > 0) this.credits.inc({ outcome }, amount);
  }
}
