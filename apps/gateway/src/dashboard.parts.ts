import { MetricsRegistry } from '@gen/observability';
import type { Provider, Type } from '@nestjs/common';
import { DashboardAccountController } from './accounts/dashboard-account.controller';
import { DashboardAuditController } from './audit/dashboard-audit.controller';
import { Mailer } from './mail/mailer';
import { EmailVerificationController } from './sessions/email-verification.controller';
import { EmailVerificationService } from './sessions/email-verification.service';
import { EmailVerificationsRepository } from './sessions/email-verifications.repository';
import { VerifiedEmailGuard } from './sessions/verified-email.guard';
import { SessionStarter } from './sessions/session-starter';
import { SignInGate } from './sessions/sign-in-gate';
import { PasswordCheck } from './sessions/password-check';
import { TwoFactorCodes } from './sessions/two-factor-codes';
import { TwoFactorSignInController } from './sessions/two-factor-sign-in.controller';
import { TwoFactorSignInService } from './sessions/two-factor-sign-in.service';
import { TwoFactorController } from './sessions/two-factor.controller';
import { TwoFactorRepository } from './sessions/two-factor.repository';
import { TwoFactorService } from './sessions/two-factor.service';
import { PasswordResetController } from './sessions/password-reset.controller';
import { PasswordResetService } from './sessions/password-reset.service';
import { PasswordResetsRepository } from './sessions/password-resets.repository';
import { DASHBOARD_SETTINGS, DashboardSettings } from './settings/dashboard.settings';
import { DashboardGenerationsController } from './generations/dashboard-generations.controller';
import { DashboardBatchesController } from './batches/dashboard-batches.controller';
import { DashboardInvitationsController } from './members/dashboard-invitations.controller';
import { DashboardMembersController } from './members/dashboard-members.controller';
import { InvitationsService } from './members/invitations.service';
import { InvitationsRepository } from './members/invitations.repository';
import { RemoveMember } from './members/remove-member.service';
import { InvitationMetrics } from './members/invitation-metrics';
import { DashboardOverviewController } from './accounts/dashboard-overview.controller';
import { GetAccountOverview } from './accounts/get-account-overview.service';
import { DashboardKeysController } from './keys/dashboard-keys.controller';
import { KEY_USE_CASES } from './keys/key-use-cases';
import { DashboardTestEventsController } from './webhook-tests/dashboard-test-events.controller';
import { DashboardModelsController } from './models/dashboard-models.controller';
import { DashboardPlaygroundController } from './generations/playground/dashboard-playground.controller';
import { PlaygroundKeyGuard } from './generations/playground/playground-key.guard';
import { SessionCookies } from './sessions/session-cookies';
import { SessionController } from './sessions/session.controller';
import { AnonymousCsrfGuard, DashboardSessionGuard } from './sessions/session.guard';
import { SessionsService } from './sessions/sessions.service';
import { SignInThrottleRepository } from './sessions/sign-in-throttle.repository';
import { DashboardStaticController } from './http/dashboard-static.controller';
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
      DashboardBatchesController,
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
