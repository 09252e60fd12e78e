import { createHash, randomInt } from 'node:crypto';

export const API_KEY_PREFIX = 'gsk_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 32;
/** Characters of the secret part used as the public lookup id (and shown in lists). */
export const LOOKUP_LENGTH = 8;

export interface NewApiKey {
  key: string;
  lookupId: string;
  hash: Buffer;
  last4: string;
}

/** `gsk_live_` + 32 base62 characters from a CSPRNG (randomInt is unbiased). */
export function generateApiKey(): NewApiKey {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i++) secret += BASE62[randomInt(62)];
  const key = API_KEY_PREFIX + secret;
  return { key, lookupId: secret.slice(0, LOOKUP_LENGTH), hash: hashApiKey(key), last4: secret.slice(-4) };
}

export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** The lookup id of a well-formed key, or null for anything that cannot be one of ours. */
export function parseApiKey(candidate: string): { lookupId: string } | null {
  if (candidate.length !== API_KEY_PREFIX.length + SECRET_LENGTH || !candidate.startsWith(API_KEY_PREFIX)) return null;
  const secret = candidate.slice(API_KEY_PREFIX.length);
  if (!/^[0-9A-Za-z]+$/.test(secret)) return null;
  return { lookupId: secret.slice(0, LOOKUP_LENGTH) };
}
