import { EngineError } from '../engines/engine';

/** Why an upstream call failed, in the terms the user message and the retry policy need. */
export type UpstreamFailureKind =
  /** One call or the whole generation ran past its timeout. */
  | 'timeout'
  /** Network error, 429 or 5xx: the provider is (perhaps briefly) unavailable. */
  | 'unavailable'
  /** 401/403: our credential is wrong or revoked (an operator problem, not the user's). */
  | 'unauthorized'
  /** Another 4xx on submit or poll: the provider refused the request. */
  | 'refused'
  /** The answer was not what the protocol says (not JSON, missing id, unknown status...). */
  | 'malformed'
  /** The provider reports the generation as failed or cancelled. */
  | 'generation_failed'
  /** The output URL could not be downloaded (404, 410, refused origin...). */
  | 'output_unavailable'
  /** The downloaded bytes are not an asset of the job's type, or too large. */
  | 'output_invalid';

/**
 * An upstream problem. `detail` is for the operator's logs: it may name the upstream's status code
 * and path but never the credential, and it is never shown to users (see `toEngineError`).
 */
export class UpstreamFailure extends Error {
  constructor(
    readonly kind: UpstreamFailureKind,
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${kind}: ${detail}`, options);
    this.name = 'UpstreamFailure';
  }

  /** Worth another try of the same call. */
  get transient(): boolean {
    return this.kind === 'unavailable' || this.kind === 'timeout';
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
