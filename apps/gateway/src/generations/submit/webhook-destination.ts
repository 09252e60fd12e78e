import { ValidationError } from '@gen/errors';
import { validateWebhookUrl, WebhookDestinationPolicy } from '@gen/webhook-policy';

/**
 * Where this generation's webhook goes, decided at submit, once: the request's `webhook_url` (checked
 * against the deployment's policy), else the key's default URL as it is now, else nowhere (null).
 * The job stores it and its event carries it, so a default changed after submit does not redirect
 * this generation's webhook, and the webhooks service never asks the gateway for it.
 * Every delivery is signed: a destination on a key without a signing secret is refused (422).
 * A key's default was checked against the same policy when it was set; the sender checks every
 * URL again before each attempt (a policy tightened since then refuses it there).
 */
export function webhookDestination(
  requested: string | undefined,
  key: { defaultWebhookUrl: string | null; hasSecret: boolean },
  policy: WebhookDestinationPolicy,
): string | null {
  const generateOne = 'Generate one in the dashboard (Settings, API Keys) and retry.';
  if (requested !== undefined) {
    const checked = validateWebhookUrl(requested, policy);
    if (!checked.ok) throw new ValidationError(`webhook_url: ${checked.reason}`);
    if (!key.hasSecret) {
      throw new ValidationError(`webhook_url: this API key has no webhook signing secret, so its events cannot be signed. ${generateOne}`);
    }
    return checked.url.href;
  }
  if (key.defaultWebhookUrl === null) return null;
  if (!key.hasSecret) {
    throw new ValidationError(
      `This API key has a default webhook URL but no webhook signing secret, so this generation's event could not be signed. ${generateOne}`,
    );
  }
  return key.defaultWebhookUrl;
}
