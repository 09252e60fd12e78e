/** Why a webhook request failed verification. Stable codes: safe to switch on, log and count. */
export type WebhookSignatureErrorReason =
  | 'missing_header'
  | 'malformed_header'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch';

/**
 * Base class of every verification failure thrown by `verify()`. Answer the sender with a 4xx (400 is
 * conventional) and do not process the body. Messages never contain the secret or the expected
 * signature, so they are safe to log.
 *
 * Programming errors (an empty secret list, a parsed object instead of the raw body) are thrown as
 * plain `TypeError`/`RangeError`, not as this class: they are bugs in the receiver, not bad requests.
 */
export class WebhookSignatureError extends Error {
  constructor(
    readonly reason: WebhookSignatureErrorReason,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** A required header (`X-Service-Timestamp` or `X-Service-Signature`) is absent or empty. */
export class WebhookMissingHeaderError extends WebhookSignatureError {
  declare readonly reason: 'missing_header';

  constructor(readonly header: string) {
    super('missing_header', `Missing ${header} header`);
  }
}

/**
 * A header does not have the expected form: the timestamp must be decimal Unix seconds, the
 * signature `sha256=` followed by 64 lowercase hex digits. Also thrown when a header is repeated.
 */
export class WebhookMalformedHeaderError extends WebhookSignatureError {
  declare readonly reason: 'malformed_header';

  constructor(
    readonly header: string,
    detail: string,
  ) {
    super('malformed_header', `Malformed ${header} header: ${detail}`);
  }
}

/**
 * The signature is valid but the signed timestamp is further from the receiver's clock than the
 * tolerance, in either direction: a replayed request, or a clock that is badly off.
 */
export class WebhookTimestampOutOfToleranceError extends WebhookSignatureError {
  declare readonly reason: 'timestamp_out_of_tolerance';

  constructor(
    /** The signed timestamp, Unix seconds. */
    readonly timestamp: number,
    /** The receiver's clock, Unix seconds. */
    readonly now: number,
    readonly toleranceSeconds: number,
  ) {
    const skew = now - timestamp;
    super(
      'timestamp_out_of_tolerance',
      `Webhook timestamp is ${Math.abs(skew)} s ${skew >= 0 ? 'in the past' : 'in the future'}; ` +
        `the tolerance is ${toleranceSeconds} s`,
    );
  }
}

/** No configured secret produces the received signature: wrong secret, or a modified body/timestamp. */
export class WebhookSignatureMismatchError extends WebhookSignatureError {
  declare readonly reason: 'signature_mismatch';

  constructor() {
    super(
      'signature_mismatch',
      'Webhook signature does not match: check the secret, and verify the raw body bytes exactly as received',
    );
  }
}
