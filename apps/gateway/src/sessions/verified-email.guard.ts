import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { UnauthorizedError } from '@gen/errors';
import type { DashboardRequest } from './session.guard';
import { EmailVerificationService } from './email-verification.service';

/** After DashboardSessionGuard, on routes that make API keys: 403 email_not_verified unless the policy allows. */
@Injectable()
export class VerifiedEmailGuard implements CanActivate {
  constructor(private readonly verification: EmailVerificationService) {}

  canActivate(context: ExecutionContext): boolean {
    const session = context.switchToHttp().getRequest<DashboardRequest>().dashboardSession;
    if (!session) throw new UnauthorizedError('Sign in to continue.');
    this.verification.assertMayCreateKeys(session);
    return true;
  }
}
