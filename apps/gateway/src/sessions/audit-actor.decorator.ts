import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { UnauthorizedError } from '@gen/errors';
import type { AuditActor } from '../audit-log/audit-actions';
import type { DashboardRequest } from './session.guard';

/** Who is acting, for the audit log: the signed-in user of a dashboard route and their client address. */
export const CurrentActor = createParamDecorator((_: unknown, context: ExecutionContext): AuditActor => {
  const request = context.switchToHttp().getRequest<DashboardRequest>();
  const session = request.dashboardSession;
  if (!session) throw new UnauthorizedError('Sign in to continue.');
  return { kind: 'user', userId: session.userId, email: session.email, ip: request.ip };
});
