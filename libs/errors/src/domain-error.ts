import type { ErrorCode } from './error-codes';

/**
 * A failure the caller can act on. Carries a code from the spec and a user-facing message; no HTTP
 * or transport in it: each transport maps it to its own wire form (the HTTP status of a code is in
 * error-codes.ts, read by the HTTP mapper and the envelope).
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Seconds the caller should wait before retrying (429, 503). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = 'A valid API key is required: send "Authorization: Bearer <API_KEY>".') {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

/** A 403 the dashboard acts on by its code: sign-up closed (invitations only), email not verified, two-factor enrolment required. */
export class AccessPolicyError extends DomainError {
  constructor(code: 'signup_closed' | 'email_not_verified' | 'two_factor_enrollment_required', message: string) {
    super(code, message);
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string) {
    super('not_found', message);
  }
}

export class ValidationError extends DomainError {
  constructor(message: string) {
    super('validation_error', message);
  }
}

export class InsufficientCreditsError extends DomainError {
  constructor(
    readonly minimumCredits: number,
    readonly availableCredits: number,
    modelId: string,
  ) {
    super(
      'insufficient_credits',
      `Insufficient credits: model "${modelId}" needs at least ${minimumCredits} available credits; ` +
        `this account has ${availableCredits}.`,
    );
  }
}

/**
 * The account is restricted by billing (a refund of credits it had spent, a disputed payment): its
 * submits are refused until the operator lifts it. The code is `insufficient_credits` (402), which
 * every client of `/api/v1` knows; the message says why and what to do.
 */
export class AccountRestrictedError extends DomainError {
  constructor(message: string) {
    super('insufficient_credits', message);
  }
}

/**
 * The API key's spending cap for the UTC day or month would be passed by this hold. The message names
 * the cap, what the key has spent in the period and when the period resets (the next UTC midnight or
 * first of the month), so the caller knows what to wait for or whom to ask.
 */
export class SpendingCapReachedError extends DomainError {
  constructor(
    readonly period: 'day' | 'month',
    readonly cap: number,
    readonly spent: number,
    readonly amount: number,
    readonly resetsAt: Date,
  ) {
    super(
      'spending_cap_reached',
      `Spending cap reached: this API key may spend ${cap} credits per ${period === 'day' ? 'day' : 'month'} (UTC); ` +
        `it has spent ${spent} ${period === 'day' ? 'today' : 'this month'} and this generation needs ${amount}. ` +
        `The cap resets at ${resetsAt.toISOString().replace('.000Z', 'Z')}.`,
    );
  }
}

/** When a UTC day's or month's spending period that contains `now` ends: the next UTC midnight, or the first of the next month. */
export function spendingPeriodEnd(period: 'day' | 'month', now: Date): Date {
  return period === 'day'
    ? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1))
    : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export class RateLimitError extends DomainError {
  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limit_exceeded', message, Math.max(1, Math.ceil(retryAfterSeconds)));
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

/** The resource existed and is gone for good (an output deleted at the end of its retention). */
export class GoneError extends DomainError {
  constructor(message: string) {
    super('gone', message);
  }
}

export class ServiceUnavailableError extends DomainError {
  constructor(message = 'The service is temporarily unavailable; retry shortly.', retryAfterSeconds = 1) {
    super('service_unavailable', message, retryAfterSeconds);
  }
}
