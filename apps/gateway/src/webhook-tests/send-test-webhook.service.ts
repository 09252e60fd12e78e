import { Inject, Injectable } from '@nestjs/common';
import { SendTestWebhookReply, SendTestWebhookRequest, Subjects } from '@gen/contracts';
import { NotFoundError, ValidationError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import { validateWebhookUrl } from '@gen/webhook-policy';
import { ApiKeysService } from '../auth/api-keys.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';

export interface SendTestWebhookCommand {
  accountId: string;
  /** The key whose secret signs it and whose default URL it goes to: the caller's own (API), or one chosen in the dashboard. */
  apiKeyId: string;
  /** Where to send it; the key's default webhook URL when absent or blank. */
  url?: string;
}

/**
 * "Send a test event" for one API key (POST /api/v1/webhooks/test, and per key in the dashboard):
 * the key must be an active key of the account, able to sign (every delivery is signed) and have
 * somewhere to send to; the URL passes the same policy as every webhook URL. The webhooks service
 * builds, signs and sends it.
 */
@Injectable()
export class SendTestWebhook {
  constructor(
    private readonly rpc: RpcClient,
    private readonly keys: ApiKeysService,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  async execute({ accountId, apiKeyId, url }: SendTestWebhookCommand): Promise<SendTestWebhookReply> {
    const key = await this.keys.get(accountId, apiKeyId); // 404 unless it is one of the account's keys
    if (key.revokedAt !== null) throw new NotFoundError('No such active key.');
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
}
