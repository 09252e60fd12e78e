import { IsIn, IsOptional, IsString } from 'class-validator';
import { Nested, Nullable } from '../validation';
import type { AccountWebhooksReply, WebhookSecretReply, WebhookSignatureScheme } from './auth.replies';
import { WEBHOOK_SIGNATURE_SCHEMES } from './auth.replies';

/** The gateway's replies as classes, the source of their schemas in the message contract; code reads auth.replies.ts. */
export class WebhookSecretReplyPayload implements WebhookSecretReply {
  @Nullable() @IsString() secret!: string | null;
  @IsOptional() @IsIn(WEBHOOK_SIGNATURE_SCHEMES) scheme?: WebhookSignatureScheme;
  @IsOptional() @IsString() previousSecret?: string | null;
}

export class AccountWebhookPayload {
  @IsString() apiKeyId!: string;
  @IsString() url!: string;
}

export class AccountWebhooksReplyPayload implements AccountWebhooksReply {
  @Nested(() => AccountWebhookPayload, { each: true }) data!: AccountWebhookPayload[];
}
