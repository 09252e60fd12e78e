import { randomFillSync } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Largest multiple of 62 that fits in a byte (4 x 62): bytes at or above it are discarded. */
const UNBIASED_LIMIT = 248;

/**
 * CSPRNG bytes drawn in blocks: one system call per block instead of one per id (a dispatcher
 * makes an id per delivery). A byte is used once and the block is wiped as it is consumed.
 */
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolOffset = POOL_SIZE;

function nextRandomByte(): number {
  if (poolOffset === POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const byte = pool[poolOffset] as number;
  pool[poolOffset++] = 0;
  return byte;
}

/**
 * `length` characters drawn uniformly from [0-9A-Za-z] with the system CSPRNG. Bytes >= 248 are
 * rejected rather than folded with `% 62`, which would make the first 8 characters more likely.
 */
export function randomBase62(length: number): string {
  if (!Number.isSafeInteger(length) || length < 0) throw new RangeError('length must be a non-negative integer');
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte >= UNBIASED_LIMIT) continue;
    out += BASE62[byte % 62];
  }
  return out;
}

export const DELIVERY_ID_PREFIX = 'wh_';
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A new `X-Service-Delivery-Id`: `wh_` + 24 random base62 characters (~143 bits). */
export function newDeliveryId(): string {
  return DELIVERY_ID_PREFIX + randomBase62(24);
}

/** A new webhook signing secret: `whsec_` + 32 random base62 characters (~190 bits). */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBase62(32);
}
