import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { ServiceUnavailableError } from '@gen/errors';
import { WEBHOOK_SECRET_PREFIX } from '@gen/webhook-signature';

/**
 * The keys that protect webhook signing secrets at rest: `current` encrypts, `current` and
 * `previous` decrypt (so an operator can rotate: add the new key as current, move the old one to
 * previous, and every secret stays readable; a secret is re-encrypted with the current key whenever
 * it is renewed).
 */
export interface WebhookSecretKeyRing {
  current: Buffer;
  previous: Buffer[];
}

export const WEBHOOK_SECRET_KEY_BYTES = 32;
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A short, non-secret identifier of a key (first 8 hex digits of its SHA-256), stored with each value. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * Parses a key from configuration: 32 bytes as base64 (44 characters) or hex (64 characters).
 * Returns null for anything else, so configuration can name the variable in its message.
 */
export function parseWebhookSecretKey(text: string): Buffer | null {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return bytes.length === WEBHOOK_SECRET_KEY_BYTES ? bytes : null;
  }
  return null;
}

export function newWebhookSecretKey(): string {
  return randomBytes(WEBHOOK_SECRET_KEY_BYTES).toString('base64');
}

/**
 * AES-256-GCM for webhook signing secrets in `auth.api_keys.webhook_secret`. A stored value is
 * `v1.<key id>.<iv>.<ciphertext>.<tag>` (base64url parts). The API key's id is the additional
 * authenticated data, so a value copied onto another key's row does not decrypt.
 */
export class WebhookSecretCipher {
  private readonly byId: Map<string, Buffer>;
  private readonly currentId: string | null;

  constructor(private readonly keys: WebhookSecretKeyRing | null) {
    this.byId = new Map();
    if (keys) {
      for (const key of [keys.current, ...keys.previous]) {
        if (key.length !== WEBHOOK_SECRET_KEY_BYTES) throw new RangeError('webhook secret keys are 32 bytes');
        if (!this.byId.has(keyId(key))) this.byId.set(keyId(key), key);
      }
    }
    this.currentId = keys ? keyId(keys.current) : null;
  }

  encrypt(secret: string, apiKeyId: string): string {
    const key = this.requireKey(this.currentId);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(apiKeyId, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, this.currentId, b64(iv), b64(ciphertext), b64(cipher.getAuthTag())].join('.');
  }

  /**
   * The clear secret. Throws when the value was not made by one of our keys for this API key.
   * A value that is still in clear (`whsec_...`, written before encryption at rest existed or by an
   * operator's SQL) is returned as it is and encrypted the next time the secret is renewed.
   */
  decrypt(stored: string, apiKeyId: string): string {
    if (stored.startsWith(WEBHOOK_SECRET_PREFIX)) return stored;
    const parts = stored.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new Error('webhook secret: unknown storage format');
    const [, id, iv, ciphertext, tag] = parts;
    const decipher = createDecipheriv('aes-256-gcm', this.requireKey(id), Buffer.from(iv, 'base64url'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(apiKeyId, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }

  private requireKey(id: string | null | undefined): Buffer {
    const key = id ? this.byId.get(id) : undefined;
    if (key) return key;
    if (!this.keys) throw new ServiceUnavailableError('Webhook secrets are not available: the encryption key is not configured.');
    throw new Error(`webhook secret: encrypted with key ${id}, which is not configured`);
  }
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64url');
}
