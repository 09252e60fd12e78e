import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { RateLimitError, secondsText } from '@gen/errors';

/**
 * The per-account request rate limit (@nestjs/throttler with SlicedThrottlerStorage: slices of the
 * account's window leased from PostgreSQL, spent in memory). Every response
 * of a limited route carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds
 * until the window ends); over the limit it is `429 rate_limit_exceeded` with `Retry-After`.
 *
 * Runs after the API key is authenticated (ApiKeyGuard calls it), because the limit and the
 * counter belong to the key's account.
 */
@Injectable()
export class AccountRateLimitGuard extends ThrottlerGuard {
  protected override headerPrefix = 'RateLimit';

  protected override throwThrottlingException(context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    // The base guard sets the RateLimit-* headers only on admitted requests; a 429 carries them too.
    const { res } = this.getRequestResponse(context);
    this.setResponseHeader(res, `${this.headerPrefix}-Limit`, detail.limit);
    this.setResponseHeader(res, `${this.headerPrefix}-Remaining`, 0);
    this.setResponseHeader(res, `${this.headerPrefix}-Reset`, detail.timeToExpire);
    throw new RateLimitError(
      `Rate limit exceeded: this account's plan allows ${detail.limit} requests per minute, counted across all ` +
        `its API keys. Retry after ${secondsText(detail.timeToBlockExpire)}.`,
      detail.timeToBlockExpire,
    );
  }
}
