import { ServiceUnavailableError } from './domain-error';

/**
 * SQLSTATE classes and codes of a database failure that says nothing about the request: the
 * connection was lost or refused, the server is shutting down or starting (a restart, a failover),
 * or it chose this transaction as a serialization or deadlock victim. Running the same work again
 * shortly may well succeed; the caller is told `503` with `Retry-After`, never `500`.
 */
const TRANSIENT_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '57P01', // admin_shutdown (pg_ctl stop/restart -m fast)
  '57P02', // crash_shutdown (another backend crashed; -m immediate)
  '57P03', // cannot_connect_now (starting up, recovering)
  '53300', // too_many_connections
]);

/** Node socket errors of a connection to the database that went away or never came. */
const TRANSIENT_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** What node-postgres and TypeORM say when the connection under a query is gone (they carry no code). */
const TRANSIENT_MESSAGES = [
  /^Connection terminated/,
  /Client has encountered a connection error and is not queryable/,
  /timeout exceeded when trying to connect/,
  /Client was closed and is not queryable/,
  /^terminating connection/,
  /the database system is (starting up|shutting down|in recovery mode)/,
  /Query read timeout/,
];

function codeOf(error: unknown): string | undefined {
  const own = (error as { code?: unknown } | null)?.code;
  if (typeof own === 'string') return own;
  const driver = (error as { driverError?: { code?: unknown } } | null)?.driverError?.code;
  return typeof driver === 'string' ? driver : undefined;
}

function messageOf(error: unknown): string {
  const own = (error as { message?: unknown } | null)?.message;
  return typeof own === 'string' ? own : '';
}

/**
 * True for a database failure that is not the request's fault and may pass if tried again shortly
 * (see TRANSIENT_SQLSTATES): connection loss (any `08xxx`, a socket error, node-postgres's
 * "Connection terminated"), the server shutting down or starting, serialization failures and deadlocks.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false;
  const code = codeOf(error);
  if (code !== undefined) {
    if (TRANSIENT_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || TRANSIENT_SOCKET_CODES.has(code)) return true;
  }
  const message = messageOf(error);
  if (TRANSIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
  // TypeORM wraps the driver's error; AggregateError (a refused connection to each address) holds several.
  const driverError = (error as { driverError?: unknown }).driverError;
  if (driverError !== undefined && driverError !== error && isTransientDatabaseError(driverError)) return true;
  const errors = (error as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.length > 0 && errors.every((inner) => isTransientDatabaseError(inner));
}

/** What a client is told when the database was briefly unavailable. */
export const DATABASE_UNAVAILABLE_MESSAGE = 'The service is briefly unavailable (its database did not answer); retry shortly.';

/** The 503 that stands for a transient database failure. */
export function databaseUnavailable(): ServiceUnavailableError {
  return new ServiceUnavailableError(DATABASE_UNAVAILABLE_MESSAGE, 1);
}
