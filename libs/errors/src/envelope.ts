import { ERROR_STATUS, ErrorCode, isErrorCode } from './error-codes';
import { DomainError } from './domain-error';
import { databaseUnavailable, isTransientDatabaseError } from './transient';

/** The spec's error body: `{ "error": { "code", "status", "message" } }` (+ request_id when known). */
export interface ErrorEnvelope {
  error: {
    code: ErrorCode;
    status: number;
    message: string;
    request_id?: string;
  };
}

/** What crosses a message transport when a handler fails: the envelope fields plus retry hint. */
export interface RpcErrorPayload {
  code: ErrorCode;
  status: number;
  message: string;
  retryAfterSeconds?: number;
}

export const INTERNAL_ERROR_MESSAGE = 'An unexpected error occurred. Please retry; if it persists, contact support.';

export function envelope(code: ErrorCode, message: string, requestId?: string): ErrorEnvelope {
  return { error: { code, status: ERROR_STATUS[code], message, ...(requestId ? { request_id: requestId } : {}) } };
}

export function isRpcErrorPayload(value: unknown): value is RpcErrorPayload {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return isErrorCode(v.code) && typeof v.message === 'string';
}

/** Rebuilds the domain error a remote handler threw, so callers can treat local and remote alike. */
export function domainErrorFromRpc(payload: RpcErrorPayload): DomainError {
  return new DomainError(payload.code, payload.message, payload.retryAfterSeconds);
}

/** The transport-neutral form of any thrown value; unknown errors never leak their details. */
export function toRpcErrorPayload(error: unknown): RpcErrorPayload {
  if (error instanceof DomainError) {
    return {
      code: error.code,
      // The envelope's status field (the spec's shape); the table lives with the codes, not the error.
      status: ERROR_STATUS[error.code],
      message: error.message,
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    };
  }
  if (isRpcErrorPayload(error)) return { ...error, status: ERROR_STATUS[error.code] };
  // The database was briefly away (a restart, a failover): the caller may retry, it is not a bug.
  if (isTransientDatabaseError(error)) return toRpcErrorPayload(databaseUnavailable());
  return { code: 'internal_error', status: 500, message: INTERNAL_ERROR_MESSAGE };
}
