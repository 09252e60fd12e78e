import { isUuid } from '@gen/contracts';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ForbiddenError, NotFoundError, UnauthorizedError } from '@gen/errors';
import type { AuthenticatedRequest } from '../../auth/api-key.guard';
import { ApiKeysService } from '../../auth/api-keys.service';
import { AccountRateLimitGuard } from '../../rate-limit/account-rate-limit.guard';
import type { DashboardRequest } from '../../sessions/session.guard';

/**
 * The playground acts as one of the account's API keys (the `:id` of the route), chosen in the page:
 * after the session guard, it makes that key the request's principal exactly as ApiKeyGuard would
 * for a Bearer key, so the account's rate limit (and its RateLimit-* headers), the key's scope and
 * everything the submit does after (plan, credits, webhooks) apply as for POST /api/v1/generate.
 * The key itself never reaches the page: only its id.
 */
@Injectable()
export class PlaygroundKeyGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly rateLimit: AccountRateLimitGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<DashboardRequest & AuthenticatedRequest>();
    const session = request.dashboardSession;
    if (!session) throw new UnauthorizedError('Sign in to continue.');
    const keyId = (request.params as Record<string, string | undefined>).id ?? '';
    if (!isUuid(keyId)) throw new NotFoundError('No such active key.');
    const key = await this.keys.get(session.accountId, keyId); // 404 unless it is one of the account's keys
    if (key.revokedAt !== null) throw new NotFoundError('No such active key.');
    request.principal = { accountId: key.accountId, apiKeyId: key.id, scopes: key.scopes };
    await this.rateLimit.canActivate(context);
    if (!key.scopes.includes('generate')) throw new ForbiddenError(`This API key lacks the "generate" permission.`);
    return true;
  }
}
