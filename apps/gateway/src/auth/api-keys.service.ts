import { Injectable } from '@nestjs/common';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { NotFoundError, UnauthorizedError, ValidationError } from '@gen/errors';
import { generateApiKey, hashApiKey, parseApiKey } from './api-key-format';
import { API_KEY_SCOPES, ApiKeyEntity, ApiKeyScope, WebhookScheme } from './api-key.entity';
import { ApiKeyCache } from './api-key-cache';
import { AuthRepository } from './auth.repository';
import { WebhookSecretCipher } from './webhook-secret-cipher';

export interface Principal {
  accountId: string;
  apiKeyId: string;
  scopes: ApiKeyScope[];
}

export interface CreatedApiKey {
  id: string;
  /** The full key: shown once, never stored. */
  key: string;
  name: string;
  scopes: ApiKeyScope[];
}

/**
 * API keys: created, verified, revoked, and their default webhook. Verification reads the gateway's
 * in-memory copy (ApiKeyCache); every change drops that copy on every gateway once committed.
 */
@Injectable()
export class ApiKeysService {
  /** A hash to compare against when the lookup id matches nothing, so both paths cost the same. */
  private readonly decoyHash = hashApiKey('gsk_live_decoy');

  constructor(
    private readonly repository: AuthRepository,
    private readonly cipher: WebhookSecretCipher,
    private readonly cache: ApiKeyCache,
  ) {}

  /** `webhookSecret` (clear) is stored encrypted; callers validate `webhookUrl` first. */
  async create(
    accountId: string,
    name: string,
    scopes: ApiKeyScope[] = [...API_KEY_SCOPES],
    webhookUrl: string | null = null,
    webhookSecret: string | null = null,
    /** The dashboard user making it (removing them from the account may revoke it); null: an operator. */
    createdBy: string | null = null,
  ): Promise<CreatedApiKey> {
    if (!(await this.repository.findAccount(accountId))) throw new NotFoundError('No such account.');
    const cleanName = name.trim();
    if (cleanName.length === 0 || cleanName.length > 100) throw new ValidationError('name: 1 to 100 characters.');
    const unknown = scopes.filter((s) => !API_KEY_SCOPES.includes(s));
    if (unknown.length > 0 || scopes.length === 0) {
      throw new ValidationError(`scopes: one or more of ${API_KEY_SCOPES.join(', ')}.`);
    }
    const generated = generateApiKey();
    const id = randomUUID();
    await this.repository.insertKey({
      id,
      accountId,
      name: cleanName,
      lookupId: generated.lookupId,
      keyHash: generated.hash,
      last4: generated.last4,
      scopes: [...new Set(scopes)],
      webhookUrl,
      webhookSecret: webhookSecret === null ? null : this.cipher.encrypt(webhookSecret, id),
      webhookScheme: 'service',
      webhookPreviousSecret: null,
      webhookPreviousSecretUntil: null,
      createdBy,
    });
    return { id, key: generated.key, name: cleanName, scopes };
  }

  /**
   * Resolves a bearer token to its account; every failure is the same 401. The hash is compared in
   * constant time, against a decoy when the lookup id matches nothing, so both paths cost the same.
   */
  async authenticate(token: string | undefined): Promise<Principal> {
    const parsed = token ? parseApiKey(token) : null;
    const key = parsed ? await this.cache.byLookupId(parsed.lookupId) : null;
    const presented = hashApiKey(token ?? '');
    const expected = key?.keyHash ?? this.decoyHash;
    const matches = expected.length === presented.length && timingSafeEqual(expected, presented);
    if (!key || !matches || key.revoked) throw new UnauthorizedError();
    this.cache.recordUse(key.id);
    return { accountId: key.accountId, apiKeyId: key.id, scopes: [...key.scopes] };
  }

  /** Revokes a key: once this returns, every gateway that the broadcast reaches answers 401 to it. */
  async revoke(accountId: string, keyId: string): Promise<void> {
    const lookupId = await this.repository.revokeKey(accountId, keyId);
    if (lookupId === null) throw new NotFoundError('No such active key.');
    await this.cache.announce({ apiKeyId: keyId, lookupId });
  }

  list(accountId: string): Promise<ApiKeyEntity[]> {
    return this.repository.listKeys(accountId);
  }

  /**
   * What submit needs to decide a generation's destination: the key's default webhook URL, and
   * whether it can sign (the secret itself is not decrypted).
   */
  async webhookDestination(keyId: string): Promise<{ defaultWebhookUrl: string | null; hasSecret: boolean }> {
    const key = await this.cache.byId(keyId);
    return { defaultWebhookUrl: key?.webhookUrl ?? null, hasSecret: key?.hasSecret ?? false };
  }

  /** A key's current signing secret, in clear (the webhooks service's `auth.webhook-secret.get`). */
  async webhookSecret(keyId: string): Promise<string | null> {
    return (await this.webhookSigning(keyId)).secret;
  }

  /**
   * How the key's next webhook attempt is signed: its secret (in clear), its scheme, and during a
   * `standard` key's rotation overlap the previous secret too (the webhooks service's `auth.webhook-secret.get`).
   */
  async webhookSigning(keyId: string): Promise<{ secret: string | null; scheme: WebhookScheme; previousSecret: string | null }> {
    const key = await this.repository.findKeySigning(keyId);
    if (!key) return { secret: null, scheme: 'service', previousSecret: null };
    return {
      secret: key.secret ? this.cipher.decrypt(key.secret, key.id) : null,
      scheme: key.scheme,
      previousSecret: key.previousSecret ? this.cipher.decrypt(key.previousSecret, key.id) : null,
    };
  }

  /** A key's signing secret (in clear) and default webhook URL together (test events). */
  async webhookSettings(keyId: string): Promise<{ secret: string | null; defaultWebhookUrl: string | null }> {
    const key = await this.repository.findKeyById(keyId);
    const secret = key?.webhookSecret ? this.cipher.decrypt(key.webhookSecret, key.id) : null;
    return { secret, defaultWebhookUrl: key?.webhookUrl ?? null };
  }

  /**
   * Sets (or clears, with null) an active key's default webhook URL. `secretIfNone` becomes the
   * key's signing secret only if it has none, atomically; `secretStored` tells whether it did.
   */
  async setWebhookUrl(
    accountId: string,
    keyId: string,
    url: string | null,
    secretIfNone: string | null,
  ): Promise<{ key: ApiKeyEntity; secretStored: boolean }> {
    const encrypted = secretIfNone === null ? null : this.cipher.encrypt(secretIfNone, keyId);
    const stored = await this.repository.setActiveKeyWebhookUrl(accountId, keyId, url, encrypted);
    if (stored === undefined) throw new NotFoundError('No such active key.');
    await this.cache.announce({ apiKeyId: keyId, lookupId: stored.lookupId });
    return { key: await this.get(accountId, keyId), secretStored: encrypted !== null && stored.secret === encrypted };
  }

  /** Replaces an active key's signing secret: the old one stops signing at once. */
  async replaceWebhookSecret(accountId: string, keyId: string, secret: string): Promise<ApiKeyEntity> {
    const lookupId = await this.repository.setActiveKeyWebhookSecret(accountId, keyId, this.cipher.encrypt(secret, keyId));
    if (lookupId === null) throw new NotFoundError('No such active key.');
    await this.cache.announce({ apiKeyId: keyId, lookupId });
    return this.get(accountId, keyId);
  }

  /**
   * Rotates an active `standard` key's secret: for `overlapSeconds` both secrets sign each attempt,
   * then only the new one. 422 for a key on the spec's scheme (its receivers expect one signature:
   * renew instead) or without a secret.
   */
  async rotateWebhookSecret(accountId: string, keyId: string, secret: string, overlapSeconds: number): Promise<ApiKeyEntity> {
    const key = await this.get(accountId, keyId);
    if (key.revokedAt) throw new NotFoundError('No such active key.');
    if (key.webhookScheme !== 'standard') {
      throw new ValidationError('overlap: only a key on the standard webhook scheme can rotate its secret with an overlap; renew the secret instead (the old one stops verifying at once), or switch the key to standard first.');
    }
    if (!key.webhookSecret) throw new ValidationError('overlap: this key has no signing secret to rotate yet; generate one first.');
    const lookupId = await this.repository.rotateActiveKeyWebhookSecret(accountId, keyId, this.cipher.encrypt(secret, keyId), overlapSeconds);
    if (lookupId === null) throw new NotFoundError('No such active key.');
    await this.cache.announce({ apiKeyId: keyId, lookupId });
    return this.get(accountId, keyId);
  }

  /** Sets an active key's webhook scheme (leaving `standard` ends a rotation's overlap). */
  async setWebhookScheme(accountId: string, keyId: string, scheme: WebhookScheme): Promise<ApiKeyEntity> {
    if (!(await this.repository.setActiveKeyWebhookScheme(accountId, keyId, scheme))) throw new NotFoundError('No such active key.');
    return this.get(accountId, keyId);
  }

  /**
   * Renames an active key and/or replaces its scopes. Scopes take effect on the key's next request
   * everywhere (the cache change is announced); the values before are returned for the audit log.
   */
  async relabel(
    accountId: string,
    keyId: string,
    change: { name?: string; scopes?: ApiKeyScope[] },
  ): Promise<{ key: ApiKeyEntity; previousName: string; previousScopes: string[] }> {
    const name = change.name === undefined ? undefined : change.name.trim();
    if (name !== undefined && (name.length === 0 || name.length > 100)) throw new ValidationError('name: 1 to 100 characters.');
    const scopes = change.scopes === undefined ? undefined : [...new Set(change.scopes)];
    if (scopes !== undefined && (scopes.length === 0 || scopes.some((s) => !API_KEY_SCOPES.includes(s)))) {
      throw new ValidationError(`scopes: one or more of ${API_KEY_SCOPES.join(', ')}.`);
    }
    const updated = await this.repository.updateActiveKeyLabel(accountId, keyId, { name, scopes });
    if (!updated) throw new NotFoundError('No such active key.');
    await this.cache.announce({ apiKeyId: keyId, lookupId: updated.lookupId });
    return { key: await this.get(accountId, keyId), previousName: updated.previousName, previousScopes: updated.previousScopes };
  }

  /** One of the account's keys (active or revoked). */
  async get(accountId: string, keyId: string): Promise<ApiKeyEntity> {
    const key = await this.repository.findKey(accountId, keyId);
    if (!key) throw new NotFoundError('No such key.');
    return key;
  }
}
