import { MetricsRegistry } from '@gen/observability';
import type { Provider, Type } from '@nestjs/common';
import { DashboardAccountController } from './dashboard/account/dashboard-account.controller';
import { DashboardAuditController } from './dashboard/audit/dashboard-audit.controller';
import { Mailer } from './mail/mailer';
import { EmailVerificationController } from './dashboard/email-verification/email-verification.controller';
import { EmailVerificationService } from './dashboard/email-verification/email-verification.service';
import { EmailVerificationsRepository } from './dashboard/email-verification/email-verifications.repository';
import { VerifiedEmailGuard } from './dashboard/email-verification/verified-email.guard';
import { SessionStarter } from './dashboard/sessions/session-starter';
import { SignInGate } from './dashboard/sessions/sign-in-gate';
import { PasswordCheck } from './dashboard/sessions/password-check';
import { TwoFactorCodes } from './dashboard/two-factor/two-factor-codes';
import { TwoFactorSignInController } from './dashboard/two-factor/two-factor-sign-in.controller';
import { TwoFactorSignInService } from './dashboard/two-factor/two-factor-sign-in.service';
import { TwoFactorController } from './dashboard/two-factor/two-factor.controller';
import { TwoFactorRepository } from './dashboard/two-factor/two-factor.repository';
import { TwoFactorService } from './dashboard/two-factor/two-factor.service';
import { PasswordResetController } from './dashboard/password-reset/password-reset.controller';
import { PasswordResetService } from './dashboard/password-reset/password-reset.service';
import { PasswordResetsRepository } from './dashboard/password-reset/password-resets.repository';
import { DASHBOARD_SETTINGS, DashboardSettings } from './dashboard/dashboard.settings';
import { DashboardGenerationsController } from './generations/dashboard-generations.controller';
import { DashboardInvitationsController } from './dashboard/members/dashboard-invitations.controller';
import { DashboardMembersController } from './dashboard/members/dashboard-members.controller';
import { InvitationsService } from './dashboard/members/invitations.service';
import { InvitationsRepository } from './members/invitations.repository';
import { RemoveMember } from './dashboard/members/remove-member';
import { InvitationMetrics } from './dashboard/members/invitation-metrics';
import { DashboardOverviewController } from './accounts/dashboard-overview.controller';
import { GetAccountOverview } from './accounts/get-account-overview';
import { DashboardKeysController } from './keys/dashboard-keys.controller';
import { KEY_USE_CASES } from './keys/key-use-cases';
import { DashboardTestEventsController } from './webhook-tests/dashboard-test-events.controller';
import { DashboardModelsController } from './models/dashboard-models.controller';
import { DashboardPlaygroundController } from './generations/playground/dashboard-playground.controller';
import { PlaygroundKeyGuard } from './generations/playground/playground-key.guard';
import { SessionCookies } from './dashboard/sessions/session-cookies';
import { SessionController } from './dashboard/sessions/session.controller';
import { AnonymousCsrfGuard, DashboardSessionGuard } from './dashboard/sessions/session.guard';
import { SessionsService } from './dashboard/sessions/sessions.service';
import { SignInThrottleRepository } from './dashboard/sessions/sign-in-throttle.repository';
import { DashboardStaticController } from './dashboard/static/dashboard-static.controller';
import { DashboardUsageController } from './usage/dashboard-usage.controller';
import { DashboardLowBalanceController } from './low-balance/dashboard-low-balance.controller';
import { LowBalanceEventsController } from './low-balance/low-balance-events.controller';
import { LowBalanceMailer } from './low-balance/low-balance-mailer.service';
import { PAYMENTS_PARTS } from './payments/payments.parts';

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
      DashboardOverviewController,
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
      ...PAYMENTS_PARTS.controllers,
      // Last: its catch-all route serves the app's pages.
      DashboardStaticController,
    ],
    providers: [
      { provide: DASHBOARD_SETTINGS, useValue: settings },
      SignInThrottleRepository,
      SignInGate,
      PasswordCheck,
      SessionStarter,
      TwoFactorRepository,
      TwoFactorCodes,
      TwoFactorSignInService,
      TwoFactorService,
      SessionsService,
      SessionCookies,
      DashboardSessionGuard,
      AnonymousCsrfGuard,
      ...KEY_USE_CASES,
      Mailer,
      LowBalanceMailer,
      PasswordResetsRepository,
      PasswordResetService,
      EmailVerificationsRepository,
      EmailVerificationService,
      VerifiedEmailGuard,
      GetAccountOverview,
      PlaygroundKeyGuard,
      InvitationsRepository,
      RemoveMember,
      {
        provide: InvitationMetrics,
        inject: [{ token: MetricsRegistry, optional: true }],
        // Without the observability module (tools, unit tests) the counter goes to a private registry.
        useFactory: (registry: MetricsRegistry | undefined) => new InvitationMetrics(registry ?? new MetricsRegistry('gateway', { defaultMetrics: false })),
      },
      InvitationsService,
      ...PAYMENTS_PARTS.providers,
    ],
  };
}
