import { ExecutionContext, Provider } from '@nestjs/common';
import { getOptionsToken, getStorageToken, ThrottlerModuleOptions } from '@nestjs/throttler';
import { UnauthorizedError } from '@gen/errors';
import type { FastifyRequest } from 'fastify';
import { AccountPlanService } from '../plans/account-plan.service';
import { AccountRateLimitGuard } from './account-rate-limit.guard';
import { RateLimitRepository } from './rate-limit.repository';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { DEFAULT_RATE_LIMIT_SETTINGS, RATE_LIMIT_SETTINGS } from '../settings/rate-limit.settings';
import { SlicedThrottlerStorage } from './sliced-throttler.storage';

/** A request the API key guard authenticated (its principal set); only the account is counted here. */
type AuthenticatedRequest = FastifyRequest & { principal?: { accountId: string } };

/** The plans' limits are requests per minute. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

function accountOf(request: AuthenticatedRequest): string {
  if (!request.principal) throw new UnauthorizedError();
  return request.principal.accountId;
}

/**
 * One throttler counted per account (all keys and routes together), its limit the account's plan
 * `requests_per_minute` (from billing, cached briefly by AccountPlanService).
 */
export function rateLimitOptions(plans: AccountPlanService): ThrottlerModuleOptions {
  return {
    throttlers: [
      {
        name: 'default',
        ttl: RATE_LIMIT_WINDOW_MS,
        limit: async (context: ExecutionContext) =>
          (await plans.limits(accountOf(context.switchToHttp().getRequest<AuthenticatedRequest>()))).requests_per_minute,
      },
    ],
    getTracker: (request) => accountOf(request as AuthenticatedRequest),
    generateKey: (_context, tracker, name) => `${name}:account:${tracker}`,
  };
}

/**
 * What ThrottlerModule.forRoot would provide, with options built from AccountPlanService (a provider
 * of this module, which ThrottlerModule's own injector could not see).
 */
export const RATE_LIMIT_PROVIDERS: Provider[] = [
  { provide: getOptionsToken(), useFactory: rateLimitOptions, inject: [AccountPlanService] },
  {
    provide: RATE_LIMIT_SETTINGS,
    useFactory: (settings: GatewaySettings) => settings.rateLimit ?? DEFAULT_RATE_LIMIT_SETTINGS,
    inject: [GATEWAY_SETTINGS],
  },
  { provide: getStorageToken(), useClass: SlicedThrottlerStorage },
  RateLimitRepository,
  AccountRateLimitGuard,
];
