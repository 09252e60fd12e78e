/**
 * The ids the services write (accounts, keys, jobs, deliveries' accounts): UUIDs in their textual form,
 * any case, any version. Anything else names no record, and is refused before it reaches
 * PostgreSQL, whose answer to a malformed uuid would be a type error.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}
