import { isUuid } from '@gen/contracts';
import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import type { BillingPaymentsSettings } from '@gen/config';
import type { AccountLowBalanceEvent, SetTopUpRequest, TopUpView } from '@gen/contracts';
import { NotFoundError, ValidationError } from '@gen/errors';
import { LowBalanceService } from '../low-balance/low-balance.service';
import { PaymentsRepository } from './payments.repository';
import { formatMoney } from './money';
import { PAYMENTS_SETTINGS, STRIPE_API } from './stripe-api';
import { TopUpsRepository } from './top-ups.repository';

const DAY_MS = 86_400_000;

/**
 * Automatic top-ups (docs/operations/payments.md, "Automatic top-up"): when the account's available
 * credits cross below its low-balance threshold (the `account.low_balance` event billing's trigger
 * writes, one per crossing), an off-session PaymentIntent buys the chosen pack with the saved card.
 * One attempt per crossing (its event id is the attempt's unique key). A decline or a card that needs
 * the customer (authentication_required) mails the owners and shows on the Billing page; retries wait
 * TOP_UP_RETRY_MINUTES, doubling, at most a day apart, and only while the balance is still low.
 */
@Injectable()
export class TopUpsService {
  private readonly logger = new Logger(TopUpsService.name);

  constructor(
    private readonly repository: TopUpsRepository,
    private readonly payments: PaymentsRepository,
    private readonly lowBalance: LowBalanceService,
    @Inject(STRIPE_API) private readonly stripe: Stripe | null,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: BillingPaymentsSettings,
  ) {}

  async view(accountId: string): Promise<TopUpView> {
    if (!isUuid(accountId)) throw new NotFoundError('No billing account for this account.');
    const [settings, threshold, card] = await Promise.all([this.repository.settings(accountId), this.lowBalance.get({ accountId }), this.repository.savedCard(accountId)]);
    return {
      enabled: settings !== null,
      pack_id: settings?.packId ?? null,
      threshold: threshold.threshold,
      card_saved: card !== null,
      failing: settings?.lastError != null,
      last_error: settings?.lastError ?? null,
      next_attempt_at: settings?.nextAttemptAt?.toISOString() ?? null,
    };
  }

  /** The owner turns top-ups on (a pack and a threshold: the low-balance threshold) or off (pack null). */
  async set(request: SetTopUpRequest): Promise<TopUpView> {
    if (!this.stripe) throw new NotFoundError('Payments are not enabled on this service (PAYMENTS_PROVIDER=none).');
    if (!isUuid(request.accountId)) throw new NotFoundError('No billing account for this account.');
    if (request.packId === null || request.packId === undefined) {
      await this.repository.setPack(request.accountId, null);
      return this.view(request.accountId);
    }
    const pack = await this.payments.pack(request.packId);
    if (!pack || !pack.active) throw new NotFoundError(`No credit pack "${request.packId}" is on sale.`);
    if (!(await this.repository.savedCard(request.accountId))) {
      throw new ValidationError('No card is saved for this account: buy a credit pack once with the card to use, then turn on automatic top-ups.');
    }
    // The threshold is the low-balance alert's: its crossing is what starts a top-up.
    await this.lowBalance.set({ accountId: request.accountId, threshold: request.threshold ?? null });
    if ((await this.lowBalance.get({ accountId: request.accountId })).threshold === null) {
      throw new ValidationError('threshold: a whole number of credits above 0 (a top-up starts when the balance falls below it).');
    }
    await this.repository.setPack(request.accountId, pack.id);
    return this.view(request.accountId);
  }

  /** `account.low_balance`: one top-up for this crossing, unless a failure's back-off is still running (the sweep retries). */
  async onLowBalance(event: AccountLowBalanceEvent): Promise<void> {
    if (!this.stripe) return;
    const settings = await this.repository.settings(event.accountId);
    if (!settings) return;
    if (settings.nextAttemptAt && settings.nextAttemptAt > new Date()) return;
    await this.attempt(event.accountId, `crossing:${event.eventId}`, settings.packId, settings.failures);
  }

  /** The sweep: retries whose back-off ended, while the balance is still below the threshold. */
  async retryDue(now = new Date()): Promise<number> {
    if (!this.stripe) return 0;
    let tried = 0;
    for (const due of await this.repository.dueRetries(now)) {
      const settings = await this.repository.settings(due.accountId);
      if (!settings) continue;
      // Keyed by the failure count: replicas sweeping at once make the same key, so one retry.
      if (await this.attempt(due.accountId, `retry:${due.accountId}:${due.failures}`, settings.packId, settings.failures)) tried += 1;
    }
    return tried;
  }

  private async attempt(accountId: string, crossingKey: string, packId: string, failures: number): Promise<boolean> {
    const stripe = this.stripe;
    if (!stripe) return false;
    const pack = await this.payments.pack(packId);
    const card = await this.repository.savedCard(accountId);
    const customer = await this.payments.customerOf(accountId);
    const attemptId = randomUUID();
    if (!(await this.repository.startAttempt(attemptId, accountId, crossingKey, packId))) return false;
    if (!pack || !pack.active || !card || !customer) {
      await this.failed(attemptId, accountId, failures, !pack || !pack.active ? `the pack "${packId}" is no longer on sale` : 'no card is saved', packId);
      return true;
    }
    try {
      const intent = await stripe.paymentIntents.create(
        {
          amount: pack.unitAmount,
          currency: pack.currency,
          customer,
          payment_method: card,
          off_session: true,
          confirm: true,
          description: `Automatic top-up: ${pack.name} (${pack.credits} credits)`,
          metadata: { account_id: accountId, pack_id: pack.id, credits: String(pack.credits), top_up_attempt: attemptId },
          expand: ['latest_charge'],
        },
        // A retried request (a lost answer) returns the same PaymentIntent: one charge per attempt.
        { idempotencyKey: `top-up-${attemptId}` },
      );
      if (intent.status !== 'succeeded') {
        await this.failed(attemptId, accountId, failures, `the payment is ${intent.status.replace(/_/g, ' ')}`, pack.id);
        return true;
      }
      const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
      await this.repository.succeed(
        attemptId,
        { accountId, packId: pack.id, credits: pack.credits, amount: intent.amount, currency: intent.currency, paymentIntentId: intent.id, chargeId: charge?.id ?? null, receiptUrl: charge?.receipt_url ?? null },
        `Automatic top-up: credit pack "${pack.id}" (Stripe payment ${intent.id})${charge?.receipt_url ? `; receipt ${charge.receipt_url}` : ''}`,
      );
      this.logger.log({ accountId, attemptId, paymentIntent: intent.id, credits: pack.credits }, 'automatic top-up paid');
    } catch (error) {
      const stripeError = error as { code?: string; decline_code?: string; message?: string };
      const why =
        stripeError.code === 'authentication_required'
          ? 'the card needs the cardholder to confirm the payment (authentication required)'
          : stripeError.code === 'card_declined'
            ? `the card was declined${stripeError.decline_code ? ` (${stripeError.decline_code.replace(/_/g, ' ')})` : ''}`
            : `Stripe did not complete the payment (${stripeError.message ?? 'no answer'})`;
      await this.failed(attemptId, accountId, failures, why, pack.id);
    }
    return true;
  }

  private async failed(attemptId: string, accountId: string, failures: number, why: string, packId: string): Promise<void> {
    const waitMs = Math.min(DAY_MS, this.settings.topUpRetryMinutes * 60_000 * 2 ** Math.min(failures, 10));
    const next = new Date(Date.now() + waitMs);
    const pack = await this.payments.pack(packId);
    const what = pack ? `${pack.name} (${pack.credits} credits, ${formatMoney(pack.unitAmount, pack.currency)})` : `"${packId}"`;
    const message =
      `The automatic top-up of the credit pack ${what} failed: ${why}. ` +
      `It is tried again after ${next.toISOString().replace(/\.\d{3}Z$/, 'Z')} while the balance stays low. ` +
      'Update the card in the portal (Billing page, "Manage cards and invoices"), or buy a pack on the Billing page.';
    await this.repository.fail(attemptId, accountId, message, next, {
      kind: 'top_up_failed',
      subject: 'Automatic top-up failed',
      message,
      details: { attempt: attemptId, pack: packId, reason: why, next_attempt_at: next.toISOString() },
    });
    this.logger.warn({ accountId, attemptId, why }, 'automatic top-up failed');
  }
}
