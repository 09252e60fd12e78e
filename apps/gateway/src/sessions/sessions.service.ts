import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { PeriodicTask } from '@gen/observability';
import { AccessPolicyError, ConflictError, ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '@gen/errors';
import type { AuditActor } from '../audit-log/audit-actions';
import { AuditService } from '../audit-log/audit.service';
import { ProvisioningService } from '../provisioning/provisioning.service';
import { DASHBOARD_SETTINGS, DashboardSettings, SignUpMode } from '../settings/dashboard.settings';
import { EmailVerificationService } from './email-verification.service';
import { isEmailAddress, MAX_EMAIL_LENGTH } from '../users/email-address';
import { MAX_PASSWORD_LENGTH, PasswordHasher } from '../users/password-hasher';
import { MIN_NEW_PASSWORD_LENGTH } from '../users/password-rules';
import { SignInThrottleRepository } from './sign-in-throttle.repository';
import { LiveSession, SessionInfo, UsersRepository } from './users.repository';
import { TwoFactorChallenge, TwoFactorSignInService } from './two-factor-sign-in.service';
import { ClientInfo, hashSessionToken, SessionStarter, StartedSession } from './session-starter';
import { SignInGate } from './sign-in-gate';

export { hashSessionToken, newToken } from './session-starter';
export type { ClientInfo, StartedSession } from './session-starter';

export const MIN_PASSWORD_LENGTH = MIN_NEW_PASSWORD_LENGTH;
const TOUCH_INTERVAL_MS = 60_000;
const MAINTENANCE_INTERVAL_MS = 10 * 60_000;

export interface Credentials {
  email: string;
  password: string;
}

/** `sign_in_throttle` keys: emails hashed, so the table does not list who tried to sign in. */
export function throttleKeys(emailKey: string, ip: string) {
  return { email: `email:${createHash('sha256').update(emailKey).digest('hex')}`, address: `ip:${ip}` };
}

/** Compares a presented CSRF token with the expected one in constant time. */
export function csrfTokensMatch(presented: string | undefined, expected: string): boolean {
  if (!presented) return false;
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Dashboard accounts and sessions: sign-up, sign-in (throttled, with one answer for every wrong
 * email or password), sign-out, and the lookup of a session from its cookie.
 */
@Injectable()
export class SessionsService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(SessionsService.name);
  private readonly hasher = new PasswordHasher();
  private readonly maintenance = new PeriodicTask({
    name: 'Dashboard maintenance',
    intervalMs: MAINTENANCE_INTERVAL_MS,
    run: () => this.removeDeadRows(),
    onError: (error) => this.logger.warn({ err: error }, 'dashboard maintenance failed'),
  });

  constructor(
    private readonly users: UsersRepository,
    private readonly throttle: SignInThrottleRepository,
    private readonly gate: SignInGate,
    private readonly starter: SessionStarter,
    private readonly twoFactor: TwoFactorSignInService,
    private readonly provisioning: ProvisioningService,
    private readonly audit: AuditService,
    private readonly verification: EmailVerificationService,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  onModuleInit(): void {
    this.maintenance.start();
  }

  onModuleDestroy(): Promise<void> {
    return this.maintenance.stop();
  }

  signUpTerms(): { enabled: boolean; mode: SignUpMode; credits: number; verification_required: boolean } {
    const { mode, credits } = this.settings.signUp;
    return { enabled: mode !== 'invite', mode, credits, verification_required: this.verification.required };
  }

  async signUp(credentials: Credentials, client: ClientInfo): Promise<StartedSession> {
    if (this.settings.signUp.mode === 'invite') {
      throw new AccessPolicyError('signup_closed', 'Sign-up is by invitation only on this deployment: ask a member of your team to invite you.');
    }
    const email = credentials.email.trim();
    const emailKey = email.toLowerCase();
    if (!isEmailAddress(email)) throw new ValidationError('email: Enter an email address such as name@example.com.');
    const password = credentials.password;
    if (password.length < MIN_PASSWORD_LENGTH) throw new ValidationError(`password: Use at least ${MIN_PASSWORD_LENGTH} characters.`);
    if (password.length > MAX_PASSWORD_LENGTH) throw new ValidationError(`password: Use at most ${MAX_PASSWORD_LENGTH} characters.`);
    if (password.trim().toLowerCase() === emailKey) throw new ValidationError('password: Do not use your email address as your password.');

    // Every sign-up from an address counts (free credits, and probing which emails have accounts).
    const key = `sign-up:${client.ip}`;
    const policy = this.settings.throttle.signUp;
    await this.gate.admit({ [key]: policy });
    const created = await this.provisioning.createAccountForUser(
      { email, emailKey, passwordHash: await this.hasher.hash(password) },
      this.settings.signUp.plan,
      this.settings.signUp.credits,
    );
    if (!created) {
      await this.gate.settle({ [key]: policy }, false);
      throw new ConflictError('email: An account with this email cannot be created. If you already have one, sign in instead.');
    }
    const actor: AuditActor = { kind: 'user', userId: created.userId, email, ip: client.ip };
    await this.audit.record({ accountId: created.accountId, actor, action: 'user.signed_up', target: email });
    await this.verification.sendAfterSignUp({ userId: created.userId, email });
    return this.starter.start({ userId: created.userId, accountId: created.accountId }, client);
  }

  /**
   * `join`, when given, runs once the password is right and names the account to open (accepting an
   * invitation by signing in adds the membership there); otherwise sign-in opens accountToOpen's.
   * A user with two-factor sign-in gets a challenge to answer with a code (TwoFactorSignInService).
   */
  signIn(credentials: Credentials, client: ClientInfo, previousToken: string | undefined): Promise<StartedSession | TwoFactorChallenge>;
  /** With `join`, never a challenge (a user with two-factor sign-in is refused: 409). */
  signIn(credentials: Credentials, client: ClientInfo, previousToken: string | undefined, join: (user: { id: string; emailKey: string }) => Promise<string>): Promise<StartedSession>;
  async signIn(
    credentials: Credentials,
    client: ClientInfo,
    previousToken: string | undefined,
    join?: (user: { id: string; emailKey: string }) => Promise<string>,
  ): Promise<StartedSession | TwoFactorChallenge> {
    const emailKey = credentials.email.trim().toLowerCase();
    const keys = throttleKeys(emailKey, client.ip);
    const policies = { [keys.email]: this.settings.throttle.email, [keys.address]: this.settings.throttle.address };
    await this.gate.admit(policies);

    const user = emailKey.length <= MAX_EMAIL_LENGTH ? await this.users.findUserByEmailKey(emailKey) : null;
    const password = credentials.password.slice(0, MAX_PASSWORD_LENGTH + 1);
    const ok = user ? await this.hasher.verify(password, user.passwordHash) : await this.hasher.verifyDecoy(password);
    await this.gate.settle(policies, ok, keys.address);
    // Failures for an address with no user belong to no account: the throttle counts them, the audit log cannot.
    const actor: AuditActor | null = user && { kind: 'user', userId: user.id, email: user.email, ip: client.ip };
    if (user?.accountId && actor && !ok) await this.audit.record({ accountId: user.accountId, actor, action: 'user.sign_in_failed', target: user.email });
    if (!user || !ok) throw new UnauthorizedError('Email or password is incorrect.');
    if (user.totpEnabledAt) {
      // The invitation cannot wait across the code step: sign in fully, then accept it signed in.
      if (join) throw new ConflictError('Your sign-in needs a code from your authenticator app: sign in first, then open the invitation link again to accept it.');
      return this.twoFactor.challenge(user.id);
    }
    // The account the user last worked on, or another they belong to (docs/guide/dashboard.md, "Switching accounts").
    const accountId = join ? await join({ id: user.id, emailKey: user.emailKey }) : await this.users.accountToOpen(user.id);
    if (!accountId) throw new ForbiddenError('You are not a member of any account any more. Ask an owner or admin of your team to invite you again.');

    await this.users.recordSignIn(user.id, this.hasher.needsRehash(user.passwordHash) ? await this.hasher.hash(password) : null);
    // A new token at every sign-in: a token planted before it (session fixation) is worth nothing.
    if (previousToken) await this.users.deleteSessionByTokenHash(hashSessionToken(previousToken));
    if (actor) await this.audit.record({ accountId, actor, action: 'user.signed_in', target: user.email });
    return this.starter.start({ userId: user.id, accountId }, client);
  }

  /**
   * Changes the signed-in user's password: the current one must be right (counted by the same
   * per-email and per-address throttle as sign-in, so a stolen session cannot guess it), the new
   * one follows the sign-up rules, and every other session of the user ends. Returns how many ended.
   */
  async changePassword(session: LiveSession, input: { currentPassword: string; newPassword: string }, client: ClientInfo): Promise<number> {
    const user = await this.users.findUserById(session.userId);
    if (!user) throw new UnauthorizedError('You are not signed in, or your session has ended. Sign in to continue.');
    const next = input.newPassword;
    if (next.length < MIN_PASSWORD_LENGTH) throw new ValidationError(`new_password: Use at least ${MIN_PASSWORD_LENGTH} characters.`);
    if (next.length > MAX_PASSWORD_LENGTH) throw new ValidationError(`new_password: Use at most ${MAX_PASSWORD_LENGTH} characters.`);
    if (next.trim().toLowerCase() === user.emailKey) throw new ValidationError('new_password: Do not use your email address as your password.');

    const keys = throttleKeys(user.emailKey, client.ip);
    const policies = { [keys.email]: this.settings.throttle.email, [keys.address]: this.settings.throttle.address };
    await this.gate.admit(policies);
    const ok = await this.hasher.verify(input.currentPassword.slice(0, MAX_PASSWORD_LENGTH + 1), user.passwordHash);
    await this.gate.settle(policies, ok, keys.address);
    if (!ok) throw new ValidationError('current_password: This is not your current password.');
    if (next === input.currentPassword) throw new ValidationError('new_password: Choose a password different from the current one.');

    const ended = await this.users.replacePassword(user.id, user.passwordHash, await this.hasher.hash(next), session.id);
    if (ended === null) throw new ConflictError('Your password was changed meanwhile (in another session). Reload the page and try again.');
    this.logger.log({ userId: user.id, endedSessions: ended }, 'password changed');
    await this.audit.record({
      accountId: session.accountId,
      actor: { kind: 'user', userId: user.id, email: user.email, ip: client.ip },
      action: 'user.password_changed',
      target: user.email,
      details: { ended_sessions: ended },
    });
    return ended;
  }

  /** The user's live sessions, most recently active first. */
  listSessions(session: LiveSession): Promise<SessionInfo[]> {
    return this.users.listLiveSessions(session.userId, this.settings.sessionIdleSeconds);
  }

  /** Ends one of the user's other sessions (the current one ends by signing out). */
  async endSession(session: LiveSession, sessionId: string, actor: AuditActor): Promise<void> {
    if (sessionId === session.id) throw new ConflictError('This is the session you are using: sign out to end it.');
    if (!(await this.users.deleteUserSession(session.userId, sessionId))) throw new NotFoundError('No such session.');
    await this.audit.record({ accountId: session.accountId, actor, action: 'user.sessions_ended', target: session.email, details: { ended_sessions: 1 } });
  }

  /** Ends every session of the user except the current one; returns how many. */
  async endOtherSessions(session: LiveSession, actor: AuditActor): Promise<number> {
    const ended = await this.users.deleteOtherSessions(session.userId, session.id);
    await this.audit.record({ accountId: session.accountId, actor, action: 'user.sessions_ended', target: session.email, details: { ended_sessions: ended } });
    return ended;
  }

  async signOut(token: string | undefined): Promise<void> {
    if (token) await this.users.deleteSessionByTokenHash(hashSessionToken(token));
  }

  /** The live session a cookie token belongs to, or null; keeps an active session from going idle. */
  async resolve(token: string | undefined): Promise<LiveSession | null> {
    if (!token || token.length > 100) return null;
    const session = await this.users.findLiveSession(hashSessionToken(token), this.settings.sessionIdleSeconds);
    if (session && Date.now() - session.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
      this.users.touchSession(session.id).catch((error: unknown) => this.logger.warn({ err: error }, 'session not touched'));
    }
    return session;
  }

  /** A new session of the user on one of their accounts (sign-up, accepting an invitation). */
  start(owner: { userId: string; accountId: string }, client: ClientInfo): Promise<StartedSession> {
    return this.starter.start(owner, client);
  }

  private async removeDeadRows(): Promise<void> {
    await this.users.deleteDeadSessions(this.settings.sessionIdleSeconds);
    await this.throttle.deleteStale(86_400);
  }
}
