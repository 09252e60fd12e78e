import { EngineError } from '../../ports/engine';

/** Why an upstream call failed, in the terms the user message and the retry policy need. */
export type UpstreamFailureKind =
  /** One call or the whole generation ran past its timeout. */
  | 'timeout'
  /** Network error, 429 or 5xx: the provider is (perhaps briefly) unavailable. */
  | 'unavailable'
  /** 401/403: our credential is wrong or revoked (an operator problem, not the user's). */
  | 'unauthorized'
  /** Another 4xx: the provider refused the request (invalid input, content policy...). */
  | 'refused'
  /** The answer was not what the protocol says (not JSON, missing id, unknown status...). */
  | 'malformed'
  /** The provider reports the generation as failed or cancelled. */
  | 'generation_failed'
  /** The output could not be downloaded (404, 410, an origin not allowed...). */
  | 'output_unavailable'
  /** The output is not an asset of the job's type, or too large. */
  | 'output_invalid';

export interface UpstreamFailureOptions {
  cause?: unknown;
  /**
   * False when the upstream certainly did not start any work for this call: no connection was made,
   * or it answered 429/503 (refused before doing anything). Only such a failure may be retried for a
   * call that is not idempotent (a provider's submit: retrying one that may have started pays twice).
   */
  mayHaveStarted?: boolean;
  /** The upstream's `Retry-After`, in ms, when it sent one. */
  retryAfterMs?: number | null;
  /** The provider answered `429` (its rate or concurrency limit): the binding slows down, not just this call. */
  throttled?: boolean;
  /** Overrides the kind's default: a network failure we know will not go away (a refused address). */
  retryable?: boolean;
}

/**
 * An upstream problem. `detail` is for the operator's logs: it may name the upstream's status code
 * and path but never the credential, and it is never shown to users (see `toEngineError`).
 */
export class UpstreamFailure extends Error {
  readonly mayHaveStarted: boolean;
  readonly retryAfterMs: number | null;
  readonly throttled: boolean;
  private readonly retryable: boolean;

  constructor(
    readonly kind: UpstreamFailureKind,
    readonly detail: string,
    options: UpstreamFailureOptions = {},
  ) {
    super(`${kind}: ${detail}`, { cause: options.cause });
    this.name = 'UpstreamFailure';
    this.mayHaveStarted = options.mayHaveStarted ?? true;
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.throttled = options.throttled ?? false;
    this.retryable = options.retryable ?? (kind === 'unavailable' || kind === 'timeout');
  }

  /** Worth another try of the same call, if the call may be repeated (see `mayHaveStarted`). */
  get transient(): boolean {
    return this.retryable;
  }
}

const REFUNDED = 'Your credits were refunded.';

/**
 * The sanitised, user-facing message of each kind: fixed strings, so no hostname, URL, status
 * line, stack trace or credential of the upstream can ever reach a user.
 */
export const USER_MESSAGES: Record<UpstreamFailureKind, string> = {
  timeout: `The model provider did not answer in time. ${REFUNDED}`,
  unavailable: `The model provider is unavailable right now. ${REFUNDED} Please try again later.`,
  unauthorized: `This model is temporarily unavailable. ${REFUNDED}`,
  refused: `The model provider refused this request. ${REFUNDED}`,
  malformed: `The model provider sent an invalid response. ${REFUNDED}`,
  generation_failed: `The model provider could not complete this generation. ${REFUNDED}`,
  output_unavailable: `The generated file could not be retrieved from the model provider. ${REFUNDED}`,
  output_invalid: `The model provider returned a file that is not a valid result for this model. ${REFUNDED}`,
};

export function toEngineError(failure: UpstreamFailure): EngineError {
  return new EngineError(USER_MESSAGES[failure.kind], { cause: failure });
}
