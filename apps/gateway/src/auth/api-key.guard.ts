import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ForbiddenError } from '@gen/errors';
import type { FastifyRequest } from 'fastify';
import { AccountRateLimitGuard } from '../rate-limit/account-rate-limit.guard';
import type { ApiKeyScope } from './api-key.entity';
import { ApiKeysService, Principal } from './api-keys.service';

export const REQUIRED_SCOPE = 'gen:required-scope';
/** The scope a route needs (`generate` or `read`); a key without it gets 403 forbidden. */
export const RequireScope = (scope: ApiKeyScope) => SetMetadata(REQUIRED_SCOPE, scope);

export type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

/**
 * Bearer API key authentication for /api/v1: 401 for anything but a live key, then the account's
 * rate limit (429; the RateLimit-* headers on every later response, errors included), then 403 for
 * a missing scope.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly reflector: Reflector,
    private readonly rateLimit: AccountRateLimitGuard,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    const principal = await this.keys.authenticate(match?.[1]);
    request.principal = principal;
    await this.rateLimit.canActivate(context);
    const scope = this.reflector.getAllAndOverride<ApiKeyScope | undefined>(REQUIRED_SCOPE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (scope && !principal.scopes.includes(scope)) {
      throw new ForbiddenError(`This API key lacks the "${scope}" permission.`);
    }
    return true;
  }
}
