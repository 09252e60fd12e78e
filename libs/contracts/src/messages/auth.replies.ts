/** What the gateway answers about keys (read by the webhooks service, which asked). */

/** How a key's webhooks are signed: the spec's X-Service-* headers, or Standard Webhooks. */
export const WEBHOOK_SIGNATURE_SCHEMES = ['service', 'standard'] as const;
export type WebhookSignatureScheme = (typeof WEBHOOK_SIGNATURE_SCHEMES)[number];

export interface WebhookSecretReply {
  /** The key's current signing secret, in clear; null when it has none (then nothing is sent: every delivery is signed). */
  secret: string | null;
  /** The key's scheme; absent from an older gateway: `service`. */
  scheme?: WebhookSignatureScheme;
  /**
   * A `standard` key's previous secret while a rotation's overlap lasts (each attempt then carries both
   * signatures); null or absent otherwise.
   */
  previousSecret?: string | null;
}

/**
 * Where an account's events go: each distinct default webhook URL of its live keys that can sign,
 * with the key whose secret signs it (the oldest key with that URL).
 */
export interface AccountWebhooksReply {
  data: Array<{ apiKeyId: string; url: string }>;
}
