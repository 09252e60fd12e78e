import { Injectable } from '@nestjs/common';
import { RateLimitError } from '@gen/errors';
import { afterFailure, afterSuccess, decideAttempt, ThrottlePolicy, ThrottleState } from './sign-in-throttle';
import { SignInThrottleRepository } from './sign-in-throttle.repository';

/**
 * The throttle in front of every guess at a secret (password, two-factor code): `admit` before the
 * check counts the attempt or refuses with 429, `settle` after it lets failures lock and a success
 * take the attempt back. Keys name what is counted (`email:<hash>`, `ip:<address>`, `totp:<user>`).
 */
@Injectable()
export class SignInGate {
  constructor(private readonly throttle: SignInThrottleRepository) {}

  /** Refuses with 429 (and Retry-After) when any counter says wait; otherwise counts this attempt. */
  async admit(policies: Record<string, ThrottlePolicy>): Promise<void> {
    const retryAfter = await this.throttle.update(Object.keys(policies), (states) => {
      const now = new Date();
      const writes = new Map<string, ThrottleState>();
      let wait = 0;
      for (const [key, state] of states) {
        const decision = decideAttempt(state, now, policies[key]);
        if (decision.allowed) writes.set(key, decision.next);
        else wait = Math.max(wait, decision.retryAfterSeconds);
      }
      return wait > 0 ? { writes: new Map(), result: wait } : { writes, result: 0 };
    });
    if (retryAfter > 0) {
      const minutes = Math.ceil(retryAfter / 60);
      const when = retryAfter < 60 ? `${retryAfter} second${retryAfter === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
      throw new RateLimitError(`Too many attempts. Wait ${when} and try again.`, retryAfter);
    }
  }

  /** After the check: failures may lock; a success takes the attempt back (`addressKey` is settled as an address). */
  async settle(policies: Record<string, ThrottlePolicy>, ok: boolean, addressKey?: string): Promise<void> {
    await this.throttle.update(Object.keys(policies), (states) => {
      const now = new Date();
      const writes = new Map<string, ThrottleState>();
      for (const [key, state] of states) {
        writes.set(key, ok ? afterSuccess(state, key === addressKey ? 'address' : 'email') : afterFailure(state, now, policies[key]));
      }
      return { writes, result: undefined };
    });
  }
}
