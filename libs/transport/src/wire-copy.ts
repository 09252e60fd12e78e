/** Thrown inside the direct copy when a value needs JSON's own rules; never escapes wireCopy. */
const NEEDS_JSON = Symbol('needs JSON');

/** Deeper than this, the copy leaves the value to JSON (which has its own limit). */
const MAX_DEPTH = 64;

/**
 * What `value` becomes after a trip over the wire (JSON.stringify, then JSON.parse), made as one
 * copy instead of a string and a second copy: plain objects, arrays, strings, finite numbers,
 * booleans, null and Dates are copied directly, with JSON's rules (a Date becomes its ISO string,
 * `undefined` members are dropped, `undefined` array items become null, -0 becomes 0). Anything
 * whose result JSON decides otherwise (a toJSON method, a class instance, a Map, a Buffer, NaN, a
 * function, a `__proto__` key) sends the whole value through JSON instead, so the result is always
 * JSON's. `undefined` stays `undefined` (a handler that answers nothing).
 */
export function wireCopy(value: unknown): unknown {
  if (value === undefined) return undefined;
  try {
    return copy(value, 0);
  } catch (error) {
    if (error !== NEEDS_JSON) throw error;
    return JSON.parse(JSON.stringify(value)) as unknown;
  }
}

function copy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw NEEDS_JSON;
      return value === 0 ? 0 : value;
    case 'object':
      break;
    default:
      throw NEEDS_JSON;
  }
  if (value === null) return null;
  if (depth > MAX_DEPTH) throw NEEDS_JSON;
  const prototype: unknown = Object.getPrototypeOf(value);
  // A toJSON of its own or inherited from anything but Date.prototype: JSON calls it.
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function' && (prototype !== Date.prototype || Object.prototype.hasOwnProperty.call(value, 'toJSON'))) throw NEEDS_JSON;
  if (prototype === Array.prototype) {
    const items = value as unknown[];
    const out = new Array<unknown>(items.length);
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      out[i] = item === undefined ? null : copy(item, depth + 1);
    }
    return out;
  }
  if (prototype === Date.prototype) {
    const date = value as Date;
    return Number.isFinite(date.getTime()) ? date.toISOString() : null;
  }
  if (prototype !== Object.prototype && prototype !== null) throw NEEDS_JSON;
  const fields = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    // JSON.parse makes "__proto__" an own property; an assignment here would set the prototype.
    if (key === '__proto__') throw NEEDS_JSON;
    const field = fields[key];
    if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
    out[key] = copy(field, depth + 1);
  }
  return out;
}
