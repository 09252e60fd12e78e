import { Inject, Injectable } from '@nestjs/common';
import { Subjects, WebhookSecretReply, WebhookSecretRequest } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { WEBHOOKS_SETTINGS } from '../config/webhooks.tokens';
import type { ResolvedWebhooksSettings } from '../config/webhooks.settings';

/**
 * A key's current signing secret, from the gateway (which owns keys): the webhooks service's one
 * dependency on it (`auth.webhook-secret.get`). Asked afresh for the attempts that start together,
 * never cached, so a renewed secret signs the very next attempt. The secret is held only for those
 * attempts and never logged. (The destination is not asked: it comes with the event.)
 */
@Injectable()
export class WebhookSecretsService {
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
