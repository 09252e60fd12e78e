import { Injectable } from '@nestjs/common';
import { CreatedKeyReply, KeyCaps, KeyCapView, KeyChangeReply, KeyView, KeyWithCapsView, ListKeyCapsReply, ListKeyCapsRequest, SetKeyCapsRequest, Subjects } from '@gen/contracts';
import { ValidationError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import { newWebhookSecret } from '@gen/webhook-signature';
import type { AuditActor } from '../audit/audit-actions';
import { AuditService } from '../audit/audit.service';
import { API_KEY_PREFIX } from '../auth/api-key-format';
import { API_KEY_SCOPES, ApiKeyEntity, ApiKeyScope } from '../auth/api-key.entity';
import { ApiKeysService } from '../auth/api-keys.service';
import { KeyWebhooksService } from '../auth/key-webhooks.service';

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

/**
 * Settings, then API Keys: create (shown once), list, revoke, default webhook URL, and the key's
 * webhook signing secret. Every change to a key's webhook that leaves it with a URL leaves it with a
 * secret too (every delivery is signed).
 */
@Injectable()
export class DashboardKeysService {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly webhooks: KeyWebhooksService,
    private readonly rpc: RpcClient,
    private readonly audit: AuditService,
  ) {}

  /** The account's keys, each with its caps and what it has spent today and this month (UTC). */
  async list(accountId: string): Promise<KeyWithCapsView[]> {
    const keys = (await this.keys.list(accountId)).map(toKeyView);
    if (keys.length === 0) return [];
    const caps = await this.rpc.request<ListKeyCapsReply, ListKeyCapsRequest>(Subjects.billingKeyCapsList, {
      accountId,
      keyIds: keys.map((k) => k.id),
    });
    const byKey = new Map(caps.data.map(({ key_id, ...rest }) => [key_id, rest]));
    return keys.map((key) => ({ ...key, caps: byKey.get(key.id) as KeyCaps }));
  }

  /**
   * Sets or removes a key's spending caps (billing checks the values: whole credits, at least 1; null
   * removes). The key must be one of the account's (404 otherwise, as for every key route).
   */
  async setCaps(
    accountId: string,
    keyId: string,
    change: { per_day?: number | null; per_month?: number | null },
    actor: AuditActor,
  ): Promise<KeyCapView> {
    const key = await this.keys.get(accountId, keyId);
    const view = await this.rpc.request<KeyCapView, SetKeyCapsRequest>(Subjects.billingKeyCapsSet, {
      accountId,
      keyId,
      perDay: change.per_day,
      perMonth: change.per_month,
    });
    await this.audit.record({
      accountId,
      actor,
      action: 'key.caps_set',
      target: key.id,
      details: { name: key.name, per_day: view.per_day, per_month: view.per_month },
    });
    return view;
  }

  async create(
    accountId: string,
    input: { name: string; scopes?: ApiKeyScope[]; webhook_url?: string | null },
    actor: AuditActor,
  ): Promise<CreatedKeyReply> {
    const name = input.name.trim();
    if (name.length === 0) throw new ValidationError('name: Enter a name for the key.');
    if (name.length > 100) throw new ValidationError('name: Use at most 100 characters.');
    const webhookUrl = this.webhooks.checkUrl(input.webhook_url);
    const secret = webhookUrl ? newWebhookSecret() : null;
    const created = await this.keys.create(accountId, name, input.scopes ?? [...API_KEY_SCOPES], webhookUrl, secret);
    const key = await this.keys.get(accountId, created.id);
    await this.audit.record({
      accountId,
      actor,
      action: 'key.created',
      target: key.id,
      details: { name: key.name, scopes: key.scopes, webhook_url: key.webhookUrl, secret_generated: secret !== null },
    });
    return { key: toKeyView(key), api_key: created.key, webhook_secret: secret };
  }

  /** Sets or removes the default webhook URL; generates the signing secret if the key has none. */
  async updateWebhookUrl(accountId: string, keyId: string, url: string | null, actor: AuditActor): Promise<KeyChangeReply> {
    const { key, webhookSecret } = await this.webhooks.setUrl(accountId, keyId, url);
    await this.audit.record({ accountId, actor, action: 'key.webhook_url_set', target: key.id, details: { name: key.name, webhook_url: key.webhookUrl } });
    if (webhookSecret) await this.audit.record({ accountId, actor, action: 'key.secret_generated', target: key.id, details: { name: key.name } });
    return { key: toKeyView(key), webhook_secret: webhookSecret };
  }

  /**
   * Generates the key's signing secret, or renews it: signatures with the old one fail from now on;
   * with `overlapSeconds` (a `standard` key), a rotation: both sign for that long first.
   */
  async renewWebhookSecret(accountId: string, keyId: string, actor: AuditActor, overlapSeconds?: number): Promise<KeyChangeReply> {
    // Read first only to tell a first secret from a renewal; the renewal itself says when there is no such key.
    const before = await this.keys.get(accountId, keyId).catch(() => null);
    const { key, webhookSecret } = await this.webhooks.renewSecret(accountId, keyId, overlapSeconds);
    const action = overlapSeconds !== undefined ? 'key.secret_rotated' : before?.webhookSecret ? 'key.secret_renewed' : 'key.secret_generated';
    const details = overlapSeconds !== undefined ? { name: key.name, overlap_seconds: overlapSeconds } : { name: key.name };
    await this.audit.record({ accountId, actor, action, target: key.id, details });
    return { key: toKeyView(key), webhook_secret: webhookSecret };
  }

  async setWebhookScheme(accountId: string, keyId: string, scheme: string, actor: AuditActor): Promise<KeyView> {
    const key = await this.webhooks.setScheme(accountId, keyId, scheme);
    await this.audit.record({ accountId, actor, action: 'key.webhook_scheme_set', target: key.id, details: { name: key.name, scheme } });
    return toKeyView(key);
  }

  /** A new name and/or scopes; each change is its own audit entry, with the value before. */
  async relabel(accountId: string, keyId: string, change: { name?: string; scopes?: ApiKeyScope[] }, actor: AuditActor): Promise<KeyView> {
    const { key, previousName, previousScopes } = await this.keys.relabel(accountId, keyId, change);
    if (key.name !== previousName) {
      await this.audit.record({ accountId, actor, action: 'key.renamed', target: key.id, details: { name: key.name, from: previousName } });
    }
    if (change.scopes !== undefined && [...key.scopes].sort().join() !== [...previousScopes].sort().join()) {
      await this.audit.record({ accountId, actor, action: 'key.scopes_changed', target: key.id, details: { name: key.name, scopes: key.scopes, from: previousScopes } });
    }
    return toKeyView(key);
  }

  async revoke(accountId: string, keyId: string, actor: AuditActor): Promise<void> {
    await this.keys.revoke(accountId, keyId);
    const key = await this.keys.get(accountId, keyId);
    await this.audit.record({ accountId, actor, action: 'key.revoked', target: key.id, details: { name: key.name } });
  }
}
