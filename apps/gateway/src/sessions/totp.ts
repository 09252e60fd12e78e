import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** A code of the step before or after the current one is accepted too (clock drift of up to 30 s). */
const WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
const RECOVERY_CODE_LENGTH = 20;
const ISSUER = 'Generation Service';
/** Recovery codes use letters and digits that cannot be mistaken for one another (no 0/o, 1/l/i). */
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

function totp(secretBase32: string, label = ''): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_SECONDS, secret: Secret.fromBase32(secretBase32) });
}

/** A new secret (160 bits, as RFC 4226 recommends), in base32 as apps take it typed in. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/...` URI an authenticator app reads (from a QR code or pasted). */
export function totpUri(secretBase32: string, email: string): string {
  return totp(secretBase32, email).toString();
}

/** The code for a time (tests, and nothing else, need to make codes). */
export function totpCode(secretBase32: string, at: number = Date.now()): string {
  return totp(secretBase32).generate({ timestamp: at });
}

/** Six digits, spaces allowed ("123 456"). */
export function isTotpCode(code: string): boolean {
  return /^\d{6}$/.test(code.replace(/\s/g, ''));
}

/**
 * The time step a code is valid for at `at` (within the window), or null. The caller accepts it only
 * if the step is later than the last one accepted (a code is refused twice: replay).
 */
export function totpStep(secretBase32: string, code: string, at: number = Date.now()): number | null {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = totp(secretBase32).validate({ token, timestamp: at, window: WINDOW });
  return delta === null ? null : Math.floor(at / 1000 / PERIOD_SECONDS) + delta;
}

/**
 * Ten recovery codes like `k7m2p-x9qrt-4hn8c-w2zfa` (20 characters of 31: 99 random bits each), shown
 * once. At that length one SHA-256 (hashRecoveryCode) is out of reach of guessing from a stolen
 * table, so no slow hash is needed. Codes issued before were 10 characters (50 bits); they are
 * stored and checked the same way, so they keep working until used or renewed.
 */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    // randomInt: uniform over the alphabet (a byte modulo 31 would favour some characters).
    const chars = Array.from({ length: RECOVERY_CODE_LENGTH }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
    return chars.match(/.{5}/g)!.join('-');
  });
}

/** How a recovery code is stored: SHA-256 of the user id and the code (case, spaces and dashes ignored). */
export function hashRecoveryCode(userId: string, code: string): Buffer {
  const normal = code.toLowerCase().replace(/[\s-]/g, '');
  return createHash('sha256').update(`${userId}:${normal}`, 'utf8').digest();
}
