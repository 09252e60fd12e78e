import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { BillingPaymentsSettings } from '@gen/config';
import { PAYMENTS_SETTINGS } from './stripe-api';
import { SubscriptionsService } from './subscriptions.service';
import { TopUpsService } from './top-ups.service';

/**
 * Every PAYMENTS_SWEEP_MS (with Stripe on), applies the downgrades whose period ended, moves the
 * accounts whose grace period ended unpaid to Free (SubscriptionsService.sweep) and retries failed
 * automatic top-ups whose back-off ended (TopUpsService.retryDue). Replicas may sweep at
 * once: each change is a conditional transaction under the account row's lock, so one applies it.
 */
@Injectable()
export class SubscriptionSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SubscriptionSweeper.name);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly topUps: TopUpsService,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: BillingPaymentsSettings,
  ) {}

  onApplicationBootstrap(): void {
    if (this.settings.provider !== 'stripe') return;
    this.timer = setInterval(() => {
      this.running = Promise.all([this.subscriptions.sweep(), this.topUps.retryDue()]).catch((error: unknown) => this.logger.error({ err: error }, 'subscription sweep failed; the next one tries again'));
    }, this.settings.sweepMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
