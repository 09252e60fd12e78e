import { randomBytes } from 'node:crypto';
import { newWebhookSecret } from '@gen/webhook-signature';
import { keyId, newWebhookSecretKey, parseWebhookSecretKey, WebhookSecretCipher } from './webhook-secret-cipher';

describe('WebhookSecretCipher', () => {
  const keyA = randomBytes(32);
  const keyB = randomBytes(32);
  const apiKeyId = '7b0c3c1e-58a4-4f0e-9f5e-3c7d1f1b2a10';

  it('round-trips a secret and never stores it in clear', () => {
    const cipher = new WebhookSecretCipher({ current: keyA, previous: [] });
    const secret = newWebhookSecret();
    const stored = cipher.encrypt(secret, apiKeyId);
    expect(stored).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain(secret.slice(6));
    expect(cipher.decrypt(stored, apiKeyId)).toBe(secret);
    // A fresh IV each time: the same secret encrypts differently.
    expect(cipher.encrypt(secret, apiKeyId)).not.toBe(stored);
  });

  it('refuses a value moved to another API key (the key id is authenticated data)', () => {
    const cipher = new WebhookSecretCipher({ current: keyA, previous: [] });
    const stored = cipher.encrypt(newWebhookSecret(), apiKeyId);
    expect(() => cipher.decrypt(stored, 'another-key-id')).toThrow();
  });

  it('refuses a tampered value', () => {
    const cipher = new WebhookSecretCipher({ current: keyA, previous: [] });
    const parts = cipher.encrypt(newWebhookSecret(), apiKeyId).split('.');
    const ct = Buffer.from(parts[3], 'base64url');
    ct[0] ^= 1;
    parts[3] = ct.toString('base64url');
    expect(() => cipher.decrypt(parts.join('.'), apiKeyId)).toThrow();
  });

  it('decrypts with a previous key after a rotation, and encrypts with the current one', () => {
    const before = new WebhookSecretCipher({ current: keyA, previous: [] });
    const secret = newWebhookSecret();
    const stored = before.encrypt(secret, apiKeyId);
    const after = new WebhookSecretCipher({ current: keyB, previous: [keyA] });
    expect(after.decrypt(stored, apiKeyId)).toBe(secret);
    expect(after.encrypt(secret, apiKeyId).split('.')[1]).toBe(keyId(keyB));
    expect(() => new WebhookSecretCipher({ current: keyB, previous: [] }).decrypt(stored, apiKeyId)).toThrow(/not configured/);
  });

  it('reads a legacy secret stored in clear as it is', () => {
    expect(new WebhookSecretCipher({ current: keyA, previous: [] }).decrypt('whsec_legacy', apiKeyId)).toBe('whsec_legacy');
  });

  it('answers service_unavailable when no key is configured', () => {
    expect(() => new WebhookSecretCipher(null).encrypt('whsec_x', apiKeyId)).toThrow(
      expect.objectContaining({ code: 'service_unavailable' }),
    );
  });

  it('parses keys from base64, base64url or hex, and nothing else', () => {
    const generated = newWebhookSecretKey();
    expect(parseWebhookSecretKey(generated)?.length).toBe(32);
    expect(parseWebhookSecretKey(keyA.toString('hex'))?.equals(keyA)).toBe(true);
    expect(parseWebhookSecretKey(keyA.toString('base64url'))?.equals(keyA)).toBe(true);
    expect(parseWebhookSecretKey('too-short')).toBeNull();
    expect(parseWebhookSecretKey(randomBytes(16).toString('base64'))).toBeNull();
  });
});
