import { isUtf8 } from 'node:buffer';
import { DomainError, ValidationError } from '@gen/errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../http-common/json-depth';

export { MAX_JSON_DEPTH, nestsDeeperThan };

/** The charsets a JSON body may declare (RFC 8259: JSON exchanged between systems is UTF-8). */
const UTF8_NAMES = new Set(['utf-8', 'utf8']);

/** The value of a parameter of a media type (`charset` of `application/json; charset=utf-8`), unquoted, lower case. */
export function mediaTypeParameter(contentType: string, name: string): string | undefined {
  for (const part of contentType.split(';').slice(1)) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim().toLowerCase() !== name) continue;
    let value = part.slice(index + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return value.toLowerCase();
  }
  return undefined;
}

/** A charset name safe to repeat in a message (the client's own text otherwise stays out of it). */
function printable(value: string): string {
  return /^[a-z0-9._:-]{1,40}$/i.test(value) ? `"${value}"` : 'that charset';
}

/**
 * Checks a JSON body before it is parsed: the declared charset, UTF-8 validity and nesting depth.
 * Each refusal is a client error in the envelope; none of them reads the body more than once.
 */
export function checkJsonBody(contentType: string | undefined, body: Buffer): void {
  const charset = contentType === undefined ? undefined : mediaTypeParameter(contentType, 'charset');
  if (charset !== undefined && !UTF8_NAMES.has(charset)) {
    throw new DomainError(
      'unsupported_media_type',
      `Unsupported charset ${printable(charset)}: send the JSON body as UTF-8 (Content-Type: application/json; charset=utf-8, or no charset).`,
    );
  }
  if (!isUtf8(body)) throw new DomainError('bad_request', 'The request body is not valid UTF-8.');
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    throw new DomainError('bad_request', `The JSON body is nested too deeply (at most ${MAX_JSON_DEPTH} levels of arrays and objects).`);
  }
}

/** `prompt`, `scopes[1]`, `a.b`: where a value sits in a body or a query, as a message names it. */
function joinPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  // Other keys are quoted as JSON, which also writes control characters as \uXXXX escapes.
  const safe = /^[A-Za-z0-9_-]{1,64}$/.test(key) ? key : JSON.stringify(key.slice(0, 64));
  return parent ? `${parent}.${safe}` : safe;
}

/**
 * The first place in a parsed value (a key or a string) that holds U+0000, which PostgreSQL cannot
 * store in text. The walk is bounded: bodies are at most MAX_JSON_DEPTH deep when they get here, and
 * query strings and path parameters are flat.
 */
export function findNulCharacter(value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'body' : undefined;
  if (value === null || typeof value !== 'object' || depth > MAX_JSON_DEPTH) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNulCharacter(value[i], joinPath(path, i), depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const here = joinPath(path, key);
    if (key.includes('\u0000')) return here;
    const found = findNulCharacter(item, here, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** True when a key or a string anywhere in `value` holds U+0000 (the walk of findNulCharacter, building no paths). */
function holdsNulCharacter(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object' || depth > MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) return value.some((item) => holdsNulCharacter(item, depth + 1));
  for (const key of Object.keys(value)) {
    if (key.includes('\u0000') || holdsNulCharacter((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

/**
 * Refuses U+0000 anywhere in the body, the query string or the path parameters: `422` naming the
 * field. Every request is checked; only one that holds the character pays for naming the field.
 */
export function refuseNulCharacters(parts: { body?: unknown; query?: unknown; params?: unknown }): void {
  for (const part of [parts.params, parts.query, parts.body]) {
    if (!holdsNulCharacter(part)) continue;
    const field = findNulCharacter(part);
    if (field) throw new ValidationError(`${field}: must not contain the NUL character (\\u0000).`);
  }
}
