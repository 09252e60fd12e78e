import { Controller, Headers, HttpCode, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { StripeEventReply } from '@gen/contracts';
import { StripeWebhookRelay } from './stripe-webhook.relay';

/** The route's path; it takes the provider callbacks' larger body limit (configureHttpApp): an invoice's event can pass 64 KiB. */
export const STRIPE_WEBHOOK_PATH = '/billing/stripe/webhook';

/**
 * Where Stripe delivers events (docs/operations/payments.md, "Webhook endpoint"). No API key: the
 * signature over the raw body is the proof. Left out of the OpenAPI document: Stripe's interface, not
 * one our API clients call.
 */
@ApiExcludeController()
@Controller('billing/stripe')
export class StripeWebhookController {
  constructor(private readonly relay: StripeWebhookRelay) {}

  @Post('webhook')
  @HttpCode(200)
  receive(@Req() request: FastifyRequest & { rawBody?: Buffer }, @Headers('stripe-signature') signature: string | undefined): Promise<StripeEventReply> {
    return this.relay.receive(request.rawBody, signature);
  }
}
