/**
 * Deepest nesting of arrays and objects a JSON body may have. No request of this API needs more
 * than 3; the limit sits well above that and far below what overflows a recursive walk (the
 * ValidationPipe's, class-transformer's, a logger's).
 */
export const MAX_JSON_DEPTH = 32;

/**
 * True when the JSON text nests arrays and objects deeper than `maxDepth`. One pass over the bytes
 * with no recursion, so it is safe on any input; brackets inside strings do not count. It runs before
 * JSON.parse: the parse itself is iterative, but everything after it walks the value recursively.
 */
export function nestsDeeperThan(body: Buffer, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === 0x5c /* \ */) escaped = true;
      else if (byte === 0x22 /* " */) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x7b /* { */ || byte === 0x5b /* [ */) {
      if (++depth > maxDepth) return true;
    } else if (byte === 0x7d /* } */ || byte === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}
