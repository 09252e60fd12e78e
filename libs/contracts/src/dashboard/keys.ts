import type { WebhookSignatureScheme } from '../messages/auth.replies';
import type { KeyCapView } from '../messages/billing.replies';

/** What an API key may do: `generate` (submit, cancel, uploads, test events) and `read`. */
export const API_KEY_SCOPES = ['generate', 'read'] as const;
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** How a key's webhooks are signed: the spec's X-Service-* headers (default), or Standard Webhooks. */
export const WEBHOOK_SCHEMES = ['service', 'standard'] as const satisfies readonly WebhookSignatureScheme[];
export type WebhookScheme = (typeof WEBHOOK_SCHEMES)[number];

/** A key as the dashboard lists it: never the key itself, never its signing secret. */
export interface KeyView {
  id: string;
  name: string;
  /** `gsk_live_` and the key's public lookup id: enough to recognise it, useless to use it. */
  prefix: string;
  last4: string;
  scopes: ApiKeyScope[];
  status: 'active' | 'revoked';
  webhook_url: string | null;
  has_webhook_secret: boolean;
  /** How its webhooks are signed: `service` (X-Service-* headers) or `standard` (Standard Webhooks). */
  webhook_scheme: WebhookScheme;
  /** While a rotation overlaps: until when the previous secret still signs too; null otherwise. */
  previous_secret_until: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A key's spending caps per UTC day and month (null: none) and what it has spent. */
export type KeyCaps = Omit<KeyCapView, 'key_id'>;

/** A key as the dashboard lists it, with its spending caps and spend (billing's view). */
export interface KeyWithCapsView extends KeyView {
  caps: KeyCaps;
}

export interface KeyChangeReply {
  key: KeyView;
  /** Shown once: set only when this call generated a secret. */
  webhook_secret: string | null;
}

export interface CreatedKeyReply extends KeyChangeReply {
  /** The full API key, shown once. */
  api_key: string;
}
