import { IsString } from 'class-validator';

/**
 * `auth.webhook-secret.get`: the webhooks service's one dependency on the gateway. Asked before
 * attempts (never cached), so a renewed secret signs the very next attempt. The destination is not
 * asked: the gateway resolved it at submit, and it comes with the event (`webhookUrl`).
 */
export class WebhookSecretRequest {
  @IsString() apiKeyId!: string;
}

/** `auth.account-webhooks.get`: where an account's events go (AccountWebhooksReply). */
export class AccountWebhooksRequest {
  @IsString() accountId!: string;
}
