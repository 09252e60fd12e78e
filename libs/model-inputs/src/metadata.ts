/**
 * A generation's `metadata`: the customer's own keys and values, opaque to the service (stored,
 * returned on the record and in the webhook body, filterable nowhere). Stripe's rules: at most 16
 * keys, each key at most 40 characters, each value a string of at most 500 characters.
 */
export const MAX_METADATA_KEYS = 16;
export const MAX_METADATA_KEY_LENGTH = 40;
export const MAX_METADATA_VALUE_LENGTH = 500;

export type MetadataCheck = { ok: true; metadata: Record<string, string> } | { ok: false; errors: string[] };

/** Checks the request's `metadata` (undefined when absent: `{}`); every problem names its key. */
export function checkMetadata(raw: unknown): MetadataCheck {
  if (raw === undefined || raw === null) return { ok: true, metadata: {} };
  if (typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, errors: ['metadata: must be an object of string keys and string values'] };
  const entries = Object.entries(raw as Record<string, unknown>);
  const errors: string[] = [];
  if (entries.length > MAX_METADATA_KEYS) errors.push(`metadata: at most ${MAX_METADATA_KEYS} keys (got ${entries.length})`);
  for (const [key, value] of entries.slice(0, MAX_METADATA_KEYS + 1)) {
    const shown = key.length > MAX_METADATA_KEY_LENGTH ? `${key.slice(0, MAX_METADATA_KEY_LENGTH)}...` : key;
    if (key.length === 0 || key.length > MAX_METADATA_KEY_LENGTH) errors.push(`metadata.${shown}: a key is 1 to ${MAX_METADATA_KEY_LENGTH} characters`);
    else if (/[\u0000-\u001f\u007f[\]]/.test(key)) errors.push(`metadata.${shown}: a key must not contain control characters or square brackets`);
    else if (typeof value !== 'string') errors.push(`metadata.${shown}: must be a string (write numbers and flags as text)`);
    else if (value.length > MAX_METADATA_VALUE_LENGTH) errors.push(`metadata.${shown}: must be at most ${MAX_METADATA_VALUE_LENGTH} characters (got ${value.length})`);
    else if (value.includes('\u0000')) errors.push(`metadata.${shown}: must not contain NUL characters`);
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, metadata: Object.fromEntries(entries) as Record<string, string> };
}
