import { Inject, Injectable } from '@nestjs/common';
import { ValidationError } from '@gen/errors';
import { newWebhookSecret } from '@gen/webhook-signature';
import { validateWebhookUrl } from '@gen/webhook-policy';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { ApiKeyEntity, WEBHOOK_SCHEMES, WebhookScheme } from './api-key.entity';
import { ApiKeysService } from './api-keys.service';

/** The longest overlap of a rotation: both secrets sign each delivery for at most a day. */
export const MAX_ROTATION_OVERLAP_SECONDS = 24 * 3600;

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

  /**
   * Generates the key's signing secret, or renews it: signatures with the old one fail from now on.
   * With `overlapSeconds` (a `standard` key only, 1 s to 24 h), a rotation instead: each delivery
   * carries signatures with both secrets for that long, then with the new one only.
   */
  async renewSecret(accountId: string, keyId: string, overlapSeconds?: number): Promise<KeyWebhookChange> {
    if (overlapSeconds !== undefined && !(Number.isInteger(overlapSeconds) && overlapSeconds >= 1 && overlapSeconds <= MAX_ROTATION_OVERLAP_SECONDS)) {
      throw new ValidationError(`overlap: a whole number of seconds from 1 to ${MAX_ROTATION_OVERLAP_SECONDS} (24 hours).`);
    }
    const secret = newWebhookSecret();
    const key =
      overlapSeconds === undefined
        ? await this.keys.replaceWebhookSecret(accountId, keyId, secret)
        : await this.keys.rotateWebhookSecret(accountId, keyId, secret, overlapSeconds);
    return { key, webhookSecret: secret };
  }

  /**
   * Chooses how the key's webhooks are signed: `service` (the spec's X-Service-* headers) or
   * `standard` (Standard Webhooks). The secret stays the same; it applies from the next attempt on.
   */
  async setScheme(accountId: string, keyId: string, scheme: string): Promise<ApiKeyEntity> {
    if (!WEBHOOK_SCHEMES.includes(scheme as WebhookScheme)) throw new ValidationError(`scheme: one of ${WEBHOOK_SCHEMES.join(', ')}.`);
    return this.keys.setWebhookScheme(accountId, keyId, scheme as WebhookScheme);
  }
}
