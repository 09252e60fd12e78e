import { Inject, Injectable } from '@nestjs/common';
import { Subjects, WebhookSecretReply, WebhookSecretRequest } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { WEBHOOKS_SETTINGS } from '../webhooks.tokens';
import type { ResolvedWebhooksSettings } from '../webhooks.settings';

/**
 * A key's webhook settings, owned by the gateway (auth schema): its default URL and its current
 * signing secret. Asked afresh for every attempt, never cached, so a renewed secret signs the very
 * next attempt. The secret is held only for the attempt and never logged.
 */
@Injectable()
export class KeyWebhookSettingsService {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(WEBHOOKS_SETTINGS) private readonly settings: ResolvedWebhooksSettings,
  ) {}

  get(apiKeyId: string): Promise<WebhookSecretReply> {
    return this.rpc.request<WebhookSecretReply, WebhookSecretRequest>(
      Subjects.authWebhookSecretGet,
      { apiKeyId },
      this.settings.secretLookupTimeoutMs,
    );
  }
}
