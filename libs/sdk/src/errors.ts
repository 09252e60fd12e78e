/** What the service answers on every error: `{"error": {"code", "status", "message", "request_id"}}`. */
export interface ErrorEnvelopeBody {
  code: string;
  status: number;
  message: string;
  request_id?: string;
  /** On a batch file refused for its invalid lines (`validation_error`): each bad line. */
  lines?: BatchLineProblem[];
}

/** A line of a batch file the API refused, and why. */
export interface BatchLineProblem {
  /** The line's number in the file, from 1. */
  line: number;
  /** Null when the line's `custom_id` could not be read. */
  custom_id: string | null;
  /** Why it was refused (`unknown model fox-9`, `not JSON`, ...). */
  message: string;
}

/**
 * An error answer of the API (its envelope), or a request that got no answer: `code` is the
 * envelope's (`unauthorized`, `insufficient_credits`, `validation_error`, `rate_limit_exceeded`, ...),
 * or `connection_error` / `timeout` (then `status` is 0 and there is no `requestId`).
 */
export class GenerationApiError extends Error {
  override readonly name: string = 'GenerationApiError';
  readonly code: string;
  readonly status: number;
  /** The X-Request-Id of the answer: quote it to support. */
  readonly requestId: string | null;
  /** Seconds the service asked to wait (Retry-After), on 429 and 503. */
  readonly retryAfterSeconds: number | null;
  /** A batch file refused for its invalid lines (422 `validation_error`): each bad line, by number (the first 1000); else null. */
  readonly lines: readonly BatchLineProblem[] | null;

  constructor(init: {
    code: string;
    status: number;
    message: string;
    requestId?: string | null;
    retryAfterSeconds?: number | null;
    lines?: readonly BatchLineProblem[] | null;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.lines = init.lines ?? null;
  }
}

/** Why a webhook request was refused by `verifyWebhook`. */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'malformed_header'
  | 'signature_mismatch'
  | 'timestamp_out_of_tolerance'
  | 'invalid_payload';

/** A webhook request that must be rejected (answer it 400 and do nothing else). */
export class WebhookVerificationError extends Error {
  override readonly name: string = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}
