import { MigrationsMode, openServiceDataSource, ServiceDatabaseOptions } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { AccountEntity } from './auth/account.entity';
import { ApiKeyEntity } from './auth/api-key.entity';
import { SessionEntity } from './sessions/session.entity';
import { SignInThrottleEntity } from './sessions/sign-in-throttle.entity';
import { AccountMemberEntity } from './memberships/account-member.entity';
import { UserEntity } from './users/user.entity';
import { AuthInit1763700000000 } from './migrations/1763700000000-auth-init';
import { AuthRateLimits1764000000000 } from './migrations/1764000000000-auth-rate-limits';
import { AuthIdempotencyKeys1764000000001 } from './migrations/1764000000001-auth-idempotency-keys';
import { DashboardUsersSessions1764100000000 } from './migrations/1764100000000-dashboard-users-sessions';
import { AuthRateLimitSlices1764710000000 } from './migrations/1764710000000-auth-rate-limit-slices';
import { AuthKeyChangeNotify1764840000000 } from './migrations/1764840000000-auth-key-change-notify';
import { AuthWebhookSchemes1764850000000 } from './migrations/1764850000000-auth-webhook-schemes';
import { AuthAuditLog1764870000001 } from './migrations/1764870000001-auth-audit-log';
import { AuthPasswordResets1764870000002 } from './migrations/1764870000002-auth-password-resets';
import { AuthUploads1764920000000 } from './migrations/1764920000000-auth-uploads';
import { AuthAccountMembers1764960000000 } from './migrations/1764960000000-auth-account-members';
import { AuthEmailVerificationTwoFactor1764970000000 } from './migrations/1764970000000-auth-email-verification-two-factor';
import { AuthLowBalanceMails1764980000002 } from './migrations/1764980000002-auth-low-balance-mails';
import { AuthFunctionsFromFiles1765200000001 } from './migrations/1765200000001-auth-functions-from-files';
import { AuthAccountKeyDefaults1766036000000 } from './migrations/1766036000000-auth-account-key-defaults';
import { AuthKeyCreators1766036000001 } from './migrations/1766036000001-auth-key-creators';
import { AuthInvitationMails1766036000002 } from './migrations/1766036000002-auth-invitation-mails';
import { AuthUploadUsage1766036000003 } from './migrations/1766036000003-auth-upload-usage';
import { AuthUploadFiles1766300000000 } from './migrations/1766300000000-auth-upload-files';

export const AUTH_SCHEMA = 'auth';

export function authDatabaseOptions(url: string, poolSize?: number): ServiceDatabaseOptions {
  return {
    url,
    schema: AUTH_SCHEMA,
    entities: [AccountEntity, ApiKeyEntity, UserEntity, SessionEntity, SignInThrottleEntity, AccountMemberEntity],
    migrations: [
      AuthInit1763700000000,
      AuthRateLimits1764000000000,
      AuthIdempotencyKeys1764000000001,
      DashboardUsersSessions1764100000000,
      AuthRateLimitSlices1764710000000,
      AuthKeyChangeNotify1764840000000,
      AuthWebhookSchemes1764850000000,
      AuthAuditLog1764870000001,
      AuthPasswordResets1764870000002,
      AuthUploads1764920000000,
      AuthAccountMembers1764960000000,
      AuthEmailVerificationTwoFactor1764970000000,
      AuthLowBalanceMails1764980000002,
      AuthFunctionsFromFiles1765200000001,
      AuthAccountKeyDefaults1766036000000,
      AuthKeyCreators1766036000001,
      AuthInvitationMails1766036000002,
      AuthUploadUsage1766036000003,
      AuthUploadFiles1766300000000,
    ],
    poolSize,
  };
}

export function openAuthDatabase(url: string, poolSize?: number, migrations: MigrationsMode = 'run'): Promise<DataSource> {
  return openServiceDataSource(authDatabaseOptions(url, poolSize), migrations);
}
