import { Inject, Injectable, Logger } from '@nestjs/common';
import Stripe from 'stripe';
import { StripeEventReply, StripeEventRequest, Subjects } from '@gen/contracts';
import { DomainError, NotFoundError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';

/** Stripe's default: a delivery signed more than five minutes ago is refused (a replay of an old one). */
export const STRIPE_SIGNATURE_TOLERANCE_SECONDS = 300;

const NOT_OURS = 'Payments are not enabled on this service (PAYMENTS_PROVIDER=none).';

/**
 * `POST /billing/stripe/webhook`: checks the `Stripe-Signature` of the raw body with the endpoint's
 * secret (stripe.webhooks.constructEvent, 300 s tolerance) and hands the event to billing, which
 * stores it by id and acts on it. A forged, stale or malformed delivery is a 400 and reaches nothing;
 * billing unreachable (down, or an older billing that does not serve `billing.stripe.event`) is a
 * 503, which Stripe retries for days.
 */
@Injectable()
export class StripeWebhookRelay {
  private readonly logger = new Logger(StripeWebhookRelay.name);

  constructor(
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  async receive(rawBody: Buffer | undefined, signature: string | string[] | undefined): Promise<StripeEventReply> {
    const secret = this.settings.payments?.webhookSecret;
    if (!secret) throw new NotFoundError(NOT_OURS);
    if (typeof signature !== 'string' || signature.length === 0 || signature.length > 2_000) {
      throw new DomainError('bad_request', 'A Stripe-Signature header is required.');
    }
    if (!rawBody || rawBody.length === 0) throw new DomainError('bad_request', 'The body is empty; Stripe sends the event as JSON.');
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(rawBody, signature, secret, STRIPE_SIGNATURE_TOLERANCE_SECONDS);
    } catch (error) {
      // Forged, signed with another secret, older than the tolerance, or not JSON: nothing reaches billing.
      this.logger.warn({ reason: (error as Error).message }, 'Stripe webhook refused');
      throw new DomainError('bad_request', `The Stripe signature does not verify: ${(error as Error).message}`);
    }
    if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new DomainError('bad_request', 'The event must be a JSON object.');
    try {
      return await this.rpc.request<StripeEventReply, StripeEventRequest>(Subjects.billingStripeEvent, { event: event as unknown as Record<string, unknown> });
    } catch (error) {
      // A signed event without the fields of an Event is malformed: a 400 like the others (Stripe does not send such).
      if (error instanceof DomainError && error.code === 'validation_error') throw new DomainError('bad_request', error.message);
      throw error;
    }
  }
}
