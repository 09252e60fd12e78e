import { Inject, Injectable } from '@nestjs/common';
import { ListTestWebhooksReply, ListTestWebhooksRequest, SendTestWebhookReply, SendTestWebhookRequest, Subjects } from '@gen/contracts';
import { ValidationError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import { validateWebhookUrl } from '@gen/webhook-policy';
import { ApiKeysService } from '../auth/api-keys.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway.tokens';

/**
 * "Send a test event" for one API key (POST /api/v1/webhooks/test, and per key in the dashboard):
 * the key must be able to sign (every delivery is signed) and have somewhere to send to; the URL
 * passes the same policy as every webhook URL. The webhooks service builds, signs and sends it.
 */
@Injectable()
export class WebhookTestsService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly keys: ApiKeysService,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  /** `apiKeyId` is a live key of `accountId` (the caller's own key, or checked by the dashboard). */
  async send(accountId: string, apiKeyId: string, url: string | undefined): Promise<SendTestWebhookReply> {
    const target = url?.trim() ? url.trim() : undefined;
    if (target !== undefined) {
      const checked = validateWebhookUrl(target, this.settings.webhookPolicy);
      if (!checked.ok) throw new ValidationError(`url: ${checked.reason}`);
    }
    const { secret, defaultWebhookUrl } = await this.keys.webhookSettings(apiKeyId);
    if (!secret) {
      throw new ValidationError(
        'This API key has no webhook signing secret, so a test event could not be signed. ' +
          'Generate one in the dashboard (Settings, API Keys) and retry.',
      );
    }
    const destination = target ?? defaultWebhookUrl;
    if (!destination) {
      throw new ValidationError('url: this API key has no default webhook URL; send "url", or set one in the dashboard (Settings, API Keys).');
    }
    return this.rpc.request<SendTestWebhookReply, SendTestWebhookRequest>(Subjects.webhooksTestSend, { accountId, apiKeyId, url: destination });
  }

  list(accountId: string, apiKeyId: string, limit: number): Promise<ListTestWebhooksReply> {
    return this.rpc.request<ListTestWebhooksReply, ListTestWebhooksRequest>(Subjects.webhooksTestList, { accountId, apiKeyId, limit });
  }
}
