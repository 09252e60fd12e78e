import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { UnauthorizedError } from '@gen/errors';
import type { AuthenticatedRequest } from './api-key.guard';
import type { Principal } from './api-keys.service';

/** The authenticated caller of an /api/v1 route (set by ApiKeyGuard). */
export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new UnauthorizedError();
  return principal;
});
