import { IsBoolean, IsIn, IsNumber, IsString } from 'class-validator';
import { Nested, Nullable } from '../validation';
import { EventName, Events } from './subjects';
import type { ListTestWebhooksReply, ListWebhookDeliveriesReply, WebhookAttemptErrorClass, WebhookAttemptView, WebhookDeliveryStatus, WebhookDeliveryView } from './webhooks.replies';
import { WEBHOOK_ATTEMPT_ERROR_CLASSES, WEBHOOK_ATTEMPT_OUTCOMES, WEBHOOK_DELIVERY_STATUSES } from './webhooks.replies';

/**
 * The webhooks service's replies as classes, the source of their schemas in the message contract
 * (docs/design/messages.asyncapi.yaml); code reads the interfaces in webhooks.replies.ts.
 */
export class WebhookAttemptViewPayload implements WebhookAttemptView {
  @IsNumber() number!: number;
  @IsString() started_at!: string;
  @Nullable() @IsNumber() duration_ms!: number | null;
  @IsIn(WEBHOOK_ATTEMPT_OUTCOMES) outcome!: WebhookAttemptView['outcome'];
  @Nullable() @IsNumber() status_code!: number | null;
  @Nullable() @IsIn(WEBHOOK_ATTEMPT_ERROR_CLASSES) error_class!: WebhookAttemptErrorClass | null;
  @Nullable() @IsString() error!: string | null;
}

/**
 * The events the webhooks service delivers to customers' URLs. Events for the services only
 * (`account.billing_notice`, for the gateway) are never a delivery's event.
 */
const DELIVERED_EVENTS = [Events.generationCompleted, Events.generationFailed, Events.accountLowBalance] as const;

/** `webhooks.redeliver` and `webhooks.test.send` answer one delivery. */
export class WebhookDeliveryViewPayload implements WebhookDeliveryView {
  @IsString() id!: string;
  @IsIn(DELIVERED_EVENTS) event!: EventName;
  @IsString() url!: string;
  @IsIn(WEBHOOK_DELIVERY_STATUSES) status!: WebhookDeliveryStatus;
  @IsNumber() attempts_made!: number;
  @IsNumber() max_attempts!: number;
  @Nullable() @IsString() next_attempt_at!: string | null;
  @IsString() created_at!: string;
  @Nullable() @IsString() finished_at!: string | null;
  @Nullable() @IsString() redelivery_of!: string | null;
  @IsBoolean() test!: boolean;
  @Nested(() => WebhookAttemptViewPayload, { each: true }) attempts!: WebhookAttemptViewPayload[];
}

/** `webhooks.deliveries.list` and `webhooks.account-events.list`. */
export class ListWebhookDeliveriesReplyPayload implements ListWebhookDeliveriesReply {
  @Nested(() => WebhookDeliveryViewPayload, { each: true }) data!: WebhookDeliveryViewPayload[];
}

export class ListTestWebhooksReplyPayload implements ListTestWebhooksReply {
  @Nested(() => WebhookDeliveryViewPayload, { each: true }) data!: WebhookDeliveryViewPayload[];
}
