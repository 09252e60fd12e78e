/**
 * What must never reach a log line: API keys, webhook secrets and signatures, passwords, session
 * cookies. Two layers: field paths (pino's fast-redact, cheap, exact) for where these values live in
 * structured data, and value patterns for the formats this service issues, wherever they end up
 * (an error message, a URL, a nested object no path foresaw).
 */
export const REDACTED = '[redacted]';

/** Header names whose values are credentials or signatures (lower case, as Node exposes them). */
export const SECRET_HEADERS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-service-signature',
  'idempotency-key',
] as const;

const SECRET_FIELDS = [
  'password',
  'passwd',
  'secret',
  'webhookSecret',
  'webhook_secret',
  'apiKey',
  'api_key',
  'key',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'signature',
  'authorization',
  'cookie',
  'databaseUrl',
  'DATABASE_URL',
];

/** pino `redact.paths`: the fields above at the top level and one or two levels down, and secret headers. */
export const REDACT_PATHS: string[] = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_FIELDS.map((f) => `*.*.${f}`),
  ...SECRET_HEADERS.flatMap((h) => [`req.headers["${h}"]`, `res.headers["${h}"]`, `headers["${h}"]`]),
];

const PATTERNS: Array<[RegExp, string]> = [
  // API keys: gsk_live_ + 32 base62 (and any other gsk_ environment).
  [/\bgsk_[a-z]+_[A-Za-z0-9]{8,}/g, REDACTED],
  // Webhook signing secrets.
  [/\bwhsec_[A-Za-z0-9+/=_-]{8,}/g, REDACTED],
  // Webhook signatures.
  [/\bsha256=[0-9a-fA-F]{16,}/g, `sha256=${REDACTED}`],
  // Bearer credentials of any shape.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  // Passwords inside connection URLs: scheme://user:password@host
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]+:)[^@\s]+@/gi, `$1${REDACTED}@`],
  // password=... in DSNs and query strings.
  [/\b(password|passwd|pwd|secret|token|api_key)=([^&\s;]+)/gi, `$1=${REDACTED}`],
];

/** What every pattern above needs somewhere in the text: most strings have none, and skip them all. */
const MIGHT_HOLD_A_SECRET = /gsk_|whsec_|sha256=|bearer|basic|:\/\/|=/i;

/** Replaces every credential-looking substring of `text`. */
export function scrubString(text: string): string {
  if (!MIGHT_HOLD_A_SECRET.test(text)) return text;
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A copy of `value` with every string scrubbed (objects and arrays walked to a bounded depth; an
 * Error's message and stack included). Unchanged parts keep their identity, so a clean log line
 * costs one walk and no copies.
 */
export function scrubValue(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (value === null || typeof value !== 'object' || depth > 8) return value;
  if (seen.has(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) {
    let changed = false;
    const copy = value.map((item) => {
      const next = scrubValue(item, depth + 1, seen);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? copy : value;
  }
  if (value instanceof Error) return scrubError(value, depth, seen);
  if (value instanceof Date || Buffer.isBuffer(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const next = scrubValue(item, depth + 1, seen);
    if (next !== item) {
      copy ??= { ...(value as Record<string, unknown>) };
      copy[key] = next;
    }
  }
  return copy ?? value;
}

/** Reads a property that may be a throwing getter (DOMException's, on a foreign receiver). */
function read(get: () => unknown): unknown {
  try {
    return get();
  } catch {
    return undefined;
  }
}

/** Words after which PostgreSQL quotes a name (kept in a message), not a value (replaced). */
const IDENTIFIER_WORDS = new Set([
  'relation', 'table', 'column', 'constraint', 'index', 'schema', 'type', 'function', 'sequence',
  'database', 'role', 'encoding', 'trigger', 'view', 'extension', 'operator', 'collation', 'domain',
]);

/** A PostgreSQL error (node-postgres's DatabaseError) or TypeORM's QueryFailedError around one. */
function isDatabaseError(error: Error): boolean {
  const fields = error as unknown as Record<string, unknown>;
  if (read(() => error.name) === 'QueryFailedError' || 'driverError' in fields) return true;
  return typeof fields.code === 'string' && /^[0-9A-Z]{5}$/.test(fields.code) && 'severity' in fields;
}

/**
 * A database error's message with the values it quotes replaced: PostgreSQL quotes both names
 * (`constraint "users_email_key"`) and input (`invalid input syntax for type uuid: "..."`).
 */
export function withoutQuotedValues(message: string): string {
  return message.replace(/(\b[\w]+\s+)?"(?:[^"]|"")*"/g, (quoted, word: string | undefined) =>
    word !== undefined && IDENTIFIER_WORDS.has(word.trim().toLowerCase()) ? quoted : `${word ?? ''}"${REDACTED}"`,
  );
}

/**
 * What is logged of a database error: the statement, the SQLSTATE code and the names involved. Never
 * the parameters, the `detail` (`Key (email)=(...) already exists`), `where` or an internal query:
 * they carry prompts, emails and key hashes.
 */
function databaseErrorLine(error: Error): Record<string, unknown> {
  const fields = error as unknown as Record<string, unknown>;
  const message = withoutQuotedValues(scrubString(String(read(() => error.message) ?? '')));
  const stack = read(() => error.stack);
  const frames = typeof stack === 'string' ? stack.split('\n').filter((line) => /^\s+at /.test(line)) : [];
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  // No prototype: pino's error serializer then reports `name` as the type, not "Object".
  return Object.assign(Object.create(null) as Record<string, unknown>, {
    name: read(() => error.name),
    type: read(() => error.name),
    message,
    code: text(fields.code),
    query: text(fields.query),
    schema: text(fields.schema),
    table: text(fields.table),
    column: text(fields.column),
    constraint: text(fields.constraint),
    routine: text(fields.routine),
    stack: [`${String(read(() => error.name))}: ${message}`, ...frames].join('\n'),
  });
}

/**
 * An error is kept as is (pino serializes it with its type and stack) unless its message, stack or
 * own fields carry a credential; then a plain copy with those scrubbed replaces it. Never a new
 * object with the error's prototype: host errors (DOMException) throw on such receivers. A database
 * error is always replaced by its value-free line.
 */
function scrubError(error: Error, depth: number, seen: WeakSet<object>): unknown {
  if (isDatabaseError(error)) return databaseErrorLine(error);
  const message = read(() => error.message);
  const stack = read(() => error.stack);
  const cleanMessage = typeof message === 'string' ? scrubString(message) : message;
  const cleanStack = typeof stack === 'string' ? scrubString(stack) : stack;
  let changed = cleanMessage !== message || cleanStack !== stack;
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(error)) {
    const field = read(() => (error as unknown as Record<string, unknown>)[key]);
    const clean = scrubValue(field, depth + 1, seen);
    fields[key] = clean;
    if (clean !== field) changed = true;
  }
  if (!changed) return error;
  return { type: read(() => error.name), message: cleanMessage, stack: cleanStack, ...fields };
}
