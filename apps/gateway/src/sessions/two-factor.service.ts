import { Injectable } from '@nestjs/common';
import type { TwoFactorStatus } from '@gen/contracts';
import { ConflictError, UnauthorizedError, ValidationError } from '@gen/errors';
import type { AuditActor } from '../audit-log/audit-actions';
import { AuditService } from '../audit-log/audit.service';
import { PasswordCheck } from './password-check';
import type { ClientInfo } from './sessions.service';
import type { LiveSession } from './users.repository';
import { TwoFactorCodes } from './two-factor-codes';
import { TwoFactorRepository, TwoFactorUser } from './two-factor.repository';
import { hashRecoveryCode, newRecoveryCodes, newTotpSecret, totpStep, totpUri } from './totp';

const WRONG_CODE = 'code: This code is not right, or was used already. Enter the current code from your app, or a recovery code.';

/**
 * A user's TOTP two-factor sign-in (docs/guide/dashboard.md, "Two-factor sign-in"): enrol (a secret shown
 * once as an otpauth URI, confirmed with a code, which yields ten recovery codes shown once),
 * renew the recovery codes or turn it off (each with a code), and the account's requirement that
 * every member use it.
 */
@Injectable()
export class TwoFactorService {
  constructor(
    private readonly repository: TwoFactorRepository,
    private readonly codes: TwoFactorCodes,
    private readonly audit: AuditService,
    private readonly password: PasswordCheck,
  ) {}

  async status(session: LiveSession): Promise<TwoFactorStatus> {
    const user = await this.user(session);
    return { enabled: user.enabled, required: session.accountRequiresTwoFactor, recovery_codes_left: user.enabled ? await this.repository.unusedRecoveryCodes(user.id) : 0 };
  }

  /** A new secret to add to an authenticator app; it works only once confirmed. Starting again replaces it. */
  async begin(session: LiveSession): Promise<{ secret: string; otpauth_uri: string }> {
    const secret = newTotpSecret();
    if (!(await this.repository.beginEnrolment(session.userId, this.codes.encryptSecret(session.userId, secret)))) {
      throw new ConflictError('Two-factor sign-in is on already. Turn it off first to use another app or phone.');
    }
    return { secret, otpauth_uri: totpUri(secret, session.email) };
  }

  /** Confirms the enrolment with a code from the app; returns the recovery codes, shown this once. */
  async confirm(session: LiveSession, { code, password }: { code: string; password: string }, actor: AuditActor, client: ClientInfo): Promise<{ recovery_codes: string[] }> {
    const user = await this.user(session);
    if (user.enabled) throw new ConflictError('Two-factor sign-in is on already.');
    if (!user.totpSecret) throw new ConflictError('Start the set-up first: no authenticator secret is waiting to be confirmed.');
    await this.password.assert(user.id, password, client);
    const step = totpStep(this.codes.secretOf({ id: user.id, totpSecret: user.totpSecret }), code);
    if (step === null) throw new ValidationError('code: This code is not right. Enter the code your app shows now for this account.');
    const recovery = newRecoveryCodes();
    const hashes = recovery.map((c) => hashRecoveryCode(user.id, c));
    if (!(await this.repository.enable(user.id, user.totpSecret, step, hashes))) {
      throw new ConflictError('The set-up changed meanwhile (in another tab). Start again.');
    }
    await this.audit.record({ accountId: session.accountId, actor, action: 'user.two_factor_enabled', target: user.email });
    return { recovery_codes: recovery };
  }

  /** Turns two-factor off with the password and a current code (or a recovery code); refused while the account requires it. */
  async disable(session: LiveSession, { code, password }: { code: string; password: string }, actor: AuditActor, client: ClientInfo): Promise<void> {
    const user = await this.enabledUser(session);
    if (session.accountRequiresTwoFactor) throw new ConflictError('Your account requires two-factor sign-in for every member; it cannot be turned off.');
    await this.password.assert(user.id, password, client);
    if ((await this.codes.check(user, code)) === null) throw new ValidationError(WRONG_CODE);
    await this.repository.disable(user.id);
    await this.audit.record({ accountId: session.accountId, actor, action: 'user.two_factor_disabled', target: user.email });
  }

  /** New recovery codes (the old ones stop working), with a current code. */
  async renewRecoveryCodes(session: LiveSession, code: string, actor: AuditActor): Promise<{ recovery_codes: string[] }> {
    const user = await this.enabledUser(session);
    if ((await this.codes.check(user, code)) === null) throw new ValidationError(WRONG_CODE);
    const recovery = newRecoveryCodes();
    await this.repository.renewRecoveryCodes(user.id, recovery.map((c) => hashRecoveryCode(user.id, c)));
    await this.audit.record({ accountId: session.accountId, actor, action: 'user.recovery_codes_renewed', target: user.email });
    return { recovery_codes: recovery };
  }

  /**
   * The account's "every member signs in with two factors". Turning it on needs it on for yourself
   * first (otherwise you would be sent to enrolment at once). Owners only (@RequiresRole on the route).
   */
  async setRequirement(session: LiveSession, required: boolean, actor: AuditActor): Promise<{ required: boolean }> {
    if (required && !session.twoFactorEnabled) throw new ConflictError('Turn on two-factor sign-in for yourself before requiring it of every member.');
    await this.repository.setAccountRequirement(session.accountId, required);
    await this.audit.record({ accountId: session.accountId, actor, action: 'account.two_factor_required_set', target: session.accountId, details: { required } });
    return { required };
  }

  private async user(session: LiveSession): Promise<TwoFactorUser> {
    const user = await this.repository.findUser(session.userId);
    if (!user) throw new UnauthorizedError('You are not signed in, or your session has ended. Sign in to continue.');
    return user;
  }

  private async enabledUser(session: LiveSession): Promise<TwoFactorUser> {
    const user = await this.user(session);
    if (!user.enabled) throw new ConflictError('Two-factor sign-in is not on.');
    return user;
  }
}
