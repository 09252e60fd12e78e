/**
 * The error codes of the public API (spec, "Errors"), plus the few an HTTP server needs for input
 * that never reaches a route (bad JSON, wrong media type, oversized body, a request too slow or too
 * large to read) and for a dependency that does not answer, `spending_cap_reached` (a key's own cap,
 * docs/guide/limits.md), and the dashboard's sign-up and two-factor refusals (docs/guide/dashboard.md). Each code has exactly one HTTP status; a status may have several codes (the first
 * listed is the one a bare status maps to).
 */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  spending_cap_reached: 402,
  forbidden: 403,
  signup_closed: 403,
  email_not_verified: 403,
  two_factor_enrollment_required: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  validation_error: 422,
  rate_limit_exceeded: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes only the dashboard's own API answers (sign-up policy, email verification, two-factor): not in the public API's document. */
export const DASHBOARD_ONLY_CODES: readonly ErrorCode[] = ['signup_closed', 'email_not_verified', 'two_factor_enrollment_required'];

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_STATUS, value);
}

/** Maps an HTTP status produced by the framework (not by our code) to the closest envelope code. */
export function codeForHttpStatus(status: number): ErrorCode {
  const exact = (Object.keys(ERROR_STATUS) as ErrorCode[]).find((code) => ERROR_STATUS[code] === status);
  if (exact) return exact;
  return status >= 500 ? 'internal_error' : 'bad_request';
}
