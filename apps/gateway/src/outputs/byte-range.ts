import type { ByteRange } from '@gen/storage';

/**
 * The one range of a `Range: bytes=…` header within an object of `size` bytes, or null to send the
 * whole object: no header, another unit, several ranges, a malformed or an unsatisfiable one (RFC 9110
 * lets a server ignore Range; a whole 200 is what every client handles). `a-b`, `a-` and `-n` (the
 * last n bytes) are understood; `b` past the end is cut to the end.
 */
export function parseByteRange(header: string | undefined, size: number): ByteRange | null {
  if (!header || size === 0) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  if (match[1] === '') {
    const length = Number(match[2]);
    if (!Number.isSafeInteger(length) || length === 0) return null;
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start >= size || end < start) return null;
  return { start, end };
}
