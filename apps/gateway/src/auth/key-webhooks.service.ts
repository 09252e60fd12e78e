import { Inject, Injectable } from '@nestjs/common';
import { ValidationError } from '@gen/errors';
import { newWebhookSecret } from '@gen/webhook-signature';
import { validateWebhookUrl } from '@gen/webhook-policy';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway.tokens';
import { ApiKeyEntity } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';

export interface KeyWebhookChange {
  key: ApiKeyEntity;
  /** Shown once: set only when this call generated a secret. */
  webhookSecret: string | null;
}

/**
 * A key's default webhook URL and signing secret, whoever changes them (the dashboard, the operator
 * CLI): one set of rules. Every change that leaves a key with a URL leaves it with a secret too
 * (every delivery is signed), and a URL is accepted only if this deployment would deliver to it.
 */
@Injectable()
export class KeyWebhooksService {
  constructor(
    private readonly keys: ApiKeysService,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  /**
   * Null for none (null or empty); otherwise the URL if this deployment would deliver to it: the
   * same check, on the same text, as `webhook_url` on POST /generate (nothing trimmed first).
   */
  checkUrl(value: string | null | undefined): string | null {
    if (value === undefined || value === null || value === '') return null;
    const checked = validateWebhookUrl(value, this.settings.webhookPolicy);
    if (!checked.ok) throw new ValidationError(`webhook_url: ${checked.reason}`);
    return checked.url.href;
  }

  /** Sets or removes the default webhook URL; generates the signing secret if the key has none. */
  async setUrl(accountId: string, keyId: string, url: string | null): Promise<KeyWebhookChange> {
    const webhookUrl = this.checkUrl(url);
    const candidate = webhookUrl ? newWebhookSecret() : null;
    const { key, secretStored } = await this.keys.setWebhookUrl(accountId, keyId, webhookUrl, candidate);
    return { key, webhookSecret: secretStored ? candidate : null };
  }

  /** Generates the key's signing secret, or renews it: signatures with the old one fail from now on. */
  async renewSecret(accountId: string, keyId: string): Promise<KeyWebhookChange> {
    const secret = newWebhookSecret();
    const key = await this.keys.replaceWebhookSecret(accountId, keyId, secret);
    return { key, webhookSecret: secret };
  }
}
