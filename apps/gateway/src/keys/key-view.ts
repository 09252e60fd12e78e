import type { KeyView } from '@gen/contracts';
import { API_KEY_PREFIX } from '../auth/api-key-format';
import type { ApiKeyEntity } from '../auth/api-key.entity';

/** A key as the dashboard (and the operator CLI) shows it: never the key itself, never its signing secret. */
export function toKeyView(key: ApiKeyEntity): KeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: `${API_KEY_PREFIX}${key.lookupId}`,
    last4: key.last4,
    scopes: key.scopes,
    status: key.revokedAt ? 'revoked' : 'active',
    webhook_url: key.webhookUrl,
    has_webhook_secret: key.webhookSecret !== null,
    webhook_scheme: key.webhookScheme,
    previous_secret_until:
      key.webhookPreviousSecretUntil && key.webhookPreviousSecretUntil.getTime() > Date.now() ? key.webhookPreviousSecretUntil.toISOString() : null,
    created_at: key.createdAt.toISOString(),
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
