import type { Provider, Type } from '@nestjs/common';
import { DashboardAccountController } from './account/dashboard-account.controller';
import { DashboardAuditController } from './audit/dashboard-audit.controller';
import { Mailer } from '../mail/mailer';
import { EmailVerificationController } from './email-verification/email-verification.controller';
import { EmailVerificationService } from './email-verification/email-verification.service';
import { EmailVerificationsRepository } from './email-verification/email-verifications.repository';
import { VerifiedEmailGuard } from './email-verification/verified-email.guard';
import { SessionStarter } from './sessions/session-starter';
import { SignInGate } from './sessions/sign-in-gate';
import { TwoFactorCodes } from './two-factor/two-factor-codes';
import { TwoFactorSignInController } from './two-factor/two-factor-sign-in.controller';
import { TwoFactorSignInService } from './two-factor/two-factor-sign-in.service';
import { TwoFactorController } from './two-factor/two-factor.controller';
import { TwoFactorRepository } from './two-factor/two-factor.repository';
import { TwoFactorService } from './two-factor/two-factor.service';
import { PasswordResetController } from './password-reset/password-reset.controller';
import { PasswordResetService } from './password-reset/password-reset.service';
import { PasswordResetsRepository } from './password-reset/password-resets.repository';
import { DASHBOARD_SETTINGS, DashboardSettings } from './dashboard.settings';
import { DashboardGenerationsController } from './generations/dashboard-generations.controller';
import { DashboardInvitationsController } from './members/dashboard-invitations.controller';
import { DashboardMembersController } from './members/dashboard-members.controller';
import { InvitationsService } from './members/invitations.service';
import { InvitationsRepository } from '../members/invitations.repository';
import { DashboardGenerationsService } from './generations/dashboard-generations.service';
import { DashboardKeysController } from './keys/dashboard-keys.controller';
import { DashboardKeysService } from './keys/dashboard-keys.service';
import { DashboardTestEventsController } from './keys/dashboard-test-events.controller';
import { DashboardModelsController } from './models/dashboard-models.controller';
import { DashboardPlaygroundController } from './playground/dashboard-playground.controller';
import { PlaygroundKeyGuard } from './playground/playground-key.guard';
import { SessionCookies } from './sessions/session-cookies';
import { SessionController } from './sessions/session.controller';
import { AnonymousCsrfGuard, DashboardSessionGuard } from './sessions/session.guard';
import { SessionsService } from './sessions/sessions.service';
import { SignInThrottleRepository } from './sessions/sign-in-throttle.repository';
import { DashboardStaticController } from './static/dashboard-static.controller';
import { DashboardUsageController } from './usage/dashboard-usage.controller';
import { DashboardLowBalanceController } from '../low-balance/dashboard-low-balance.controller';
import { LowBalanceEventsController } from '../low-balance/low-balance-events.controller';
import { LowBalanceMailer } from '../low-balance/low-balance-mailer.service';

/**
 * The dashboard's controllers and providers, added to the gateway module when it serves the
 * dashboard (the HTTP apps do; the operator CLI does not). They use the gateway's own providers.
 */
export function dashboardParts(settings: DashboardSettings): { controllers: Type[]; providers: Provider[] } {
  return {
    controllers: [
      SessionController,
      DashboardKeysController,
      DashboardTestEventsController,
      DashboardGenerationsController,
      DashboardModelsController,
      DashboardPlaygroundController,
      DashboardUsageController,
      DashboardAccountController,
      DashboardAuditController,
      DashboardMembersController,
      DashboardInvitationsController,
      DashboardLowBalanceController,
      LowBalanceEventsController,
      PasswordResetController,
      EmailVerificationController,
      TwoFactorController,
      TwoFactorSignInController,
      // Last: its catch-all route serves the app's pages.
      DashboardStaticController,
    ],
    providers: [
      { provide: DASHBOARD_SETTINGS, useValue: settings },
      SignInThrottleRepository,
      SignInGate,
      SessionStarter,
      TwoFactorRepository,
      TwoFactorCodes,
      TwoFactorSignInService,
      TwoFactorService,
      SessionsService,
      SessionCookies,
      DashboardSessionGuard,
      AnonymousCsrfGuard,
      DashboardKeysService,
      Mailer,
      LowBalanceMailer,
      PasswordResetsRepository,
      PasswordResetService,
      EmailVerificationsRepository,
      EmailVerificationService,
      VerifiedEmailGuard,
      DashboardGenerationsService,
      PlaygroundKeyGuard,
      InvitationsRepository,
      InvitationsService,
    ],
  };
}
