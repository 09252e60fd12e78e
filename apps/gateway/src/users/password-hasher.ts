import { randomBytes, scrypt as scryptCallback, ScryptOptions, timingSafeEqual } from 'node:crypto';

/** scrypt cost: N = 2^15, r = 8 (32 MiB per hash), p = 1; about 50-100 ms on one core here. */
export interface ScryptParams {
  log2N: number;
  r: number;
  p: number;
}

export const DEFAULT_SCRYPT_PARAMS: ScryptParams = { log2N: 15, r: 8, p: 1 };
const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** Longest password accepted: scrypt is fine with long input, but bodies are bounded anyway. */
export const MAX_PASSWORD_LENGTH = 200;

function scrypt(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = {
    N: 2 ** params.log2N,
    r: params.r,
    p: params.p,
    // Node's default maxmem (32 MiB) is exactly the need of N=2^15, r=8; leave headroom.
    maxmem: 256 * 2 ** params.log2N * params.r,
  };
  return new Promise((resolve, reject) =>
    scryptCallback(password.normalize('NFC'), salt, HASH_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; hash: Buffer } | null {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [log2N, r, p] = parts.slice(1, 4).map(Number);
  if (![log2N, r, p].every((n) => Number.isInteger(n) && n > 0) || log2N > 22 || r > 32 || p > 16) return null;
  return { params: { log2N, r, p }, salt: Buffer.from(parts[4], 'base64'), hash: Buffer.from(parts[5], 'base64') };
}

/**
 * Password hashing with scrypt (memory-hard), a random 16-byte salt per password, and the parameters
 * stored with the hash so they can be raised later (`needsRehash`).
 */
export class PasswordHasher {
  /** A hash of nothing anyone knows: verifying against it costs what a real verification costs. */
  private decoy?: Promise<string>;

  constructor(private readonly params: ScryptParams = DEFAULT_SCRYPT_PARAMS) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_BYTES);
    const hash = await scrypt(password, salt, this.params);
    const { log2N, r, p } = this.params;
    return `scrypt$${log2N}$${r}$${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
  }

  /** Constant-time comparison; a malformed stored value never matches. */
  async verify(password: string, stored: string): Promise<boolean> {
    const parsed = parse(stored);
    if (!parsed || parsed.hash.length !== HASH_BYTES) return false;
    const candidate = await scrypt(password, parsed.salt, parsed.params);
    return timingSafeEqual(candidate, parsed.hash);
  }

  /**
   * Spends the time of one verification and answers false: for a sign-in with an unknown email,
   * so that its response time does not tell that the email has no account.
   */
  async verifyDecoy(password: string): Promise<false> {
    this.decoy ??= this.hash(randomBytes(16).toString('hex'));
    await this.verify(password, await this.decoy);
    return false;
  }

  needsRehash(stored: string): boolean {
    const parsed = parse(stored);
    return !parsed || parsed.params.log2N < this.params.log2N || parsed.params.r < this.params.r || parsed.params.p < this.params.p;
  }
}
