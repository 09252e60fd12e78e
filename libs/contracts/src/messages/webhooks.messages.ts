import { IsNumber, IsString } from 'class-validator';

/** The requests the webhooks service answers (delivery log, test events), checked on receipt (PAYLOAD_CLASSES). */

/** The deliveries of one generation of one account (`GET /api/v1/generations/{id}/deliveries`). */
export class ListWebhookDeliveriesRequest {
  @IsString() accountId!: string;
  @IsString() jobId!: string;
}

/** Sends the generation's event again, as a new delivery (`POST /api/v1/generations/{id}/redeliver`). */
export class RedeliverWebhookRequest {
  @IsString() accountId!: string;
  @IsString() jobId!: string;
}

/**
 * Sends a test event (`POST /api/v1/webhooks/test`): a `generation.completed`-shaped body with a
 * `test_` id, signed with the key's current secret, through the dispatcher like any delivery. The
 * gateway has checked the key (the account's, active, with a secret) and the URL.
 */
export class SendTestWebhookRequest {
  @IsString() accountId!: string;
  @IsString() apiKeyId!: string;
  @IsString() url!: string;
}

/** The latest test events of one key of one account, newest first. */
export class ListTestWebhooksRequest {
  @IsString() accountId!: string;
  @IsString() apiKeyId!: string;
  @IsNumber() limit!: number;
}

/** An account's latest account-event deliveries (answered with ListWebhookDeliveriesReply). */
export class AccountEventsListRequest {
  @IsString() accountId!: string;
  @IsNumber() limit!: number;
}
