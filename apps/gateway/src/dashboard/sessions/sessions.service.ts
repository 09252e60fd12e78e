import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ConflictError, ForbiddenError, NotFoundError, RateLimitError, UnauthorizedError, ValidationError } from '@gen/errors';
import type { AuditActor } from '../../audit/audit-actions';
import { AuditService } from '../../audit/audit.service';
import { ProvisioningService } from '../../provisioning/provisioning.service';
import { DASHBOARD_SETTINGS, DashboardSettings } from '../dashboard.settings';
import { isEmailAddress, MAX_EMAIL_LENGTH } from '../../users/email-address';
import { MAX_PASSWORD_LENGTH, PasswordHasher } from '../../users/password-hasher';
import { MIN_NEW_PASSWORD_LENGTH } from '../../users/password-rules';
import { afterFailure, afterSuccess, decideAttempt, ThrottlePolicy, ThrottleState } from './sign-in-throttle';
import { SignInThrottleRepository } from './sign-in-throttle.repository';
import { LiveSession, SessionInfo, UsersRepository } from './users.repository';

export const MIN_PASSWORD_LENGTH = MIN_NEW_PASSWORD_LENGTH;
const TOUCH_INTERVAL_MS = 60_000;
const MAINTENANCE_INTERVAL_MS = 10 * 60_000;

export interface Credentials {
  email: string;
  password: string;
}

export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

/** A new session: the cookie's token (never stored) and what the page needs. */
export interface StartedSession {
  token: string;
  maxAgeSeconds: number;
  session: LiveSession;
}

/** `sign_in_throttle` keys: emails hashed, so the table does not list who tried to sign in. */
function throttleKeys(emailKey: string, ip: string) {
  return { email: `email:${createHash('sha256').update(emailKey).digest('hex')}`, address: `ip:${ip}` };
}

export function hashSessionToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
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
  private maintenance?: NodeJS.Timeout;

  constructor(
    private readonly users: UsersRepository,
    private readonly throttle: SignInThrottleRepository,
    private readonly provisioning: ProvisioningService,
    private readonly audit: AuditService,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  onModuleInit(): void {
    this.maintenance = setInterval(() => void this.removeDeadRows(), MAINTENANCE_INTERVAL_MS);
    this.maintenance.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.maintenance);
  }

  signUpTerms(): { enabled: boolean; credits: number } {
    return { enabled: this.settings.signUp.enabled, credits: this.settings.signUp.credits };
  }

  async signUp(credentials: Credentials, client: ClientInfo): Promise<StartedSession> {
    if (!this.settings.signUp.enabled) throw new ForbiddenError('Sign-up is closed on this deployment; ask your administrator for an account.');
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
    await this.admit({ [key]: policy });
    const created = await this.provisioning.createAccountForUser(
      { email, emailKey, passwordHash: await this.hasher.hash(password) },
      this.settings.signUp.plan,
      this.settings.signUp.credits,
    );
    if (!created) {
      await this.settle({ [key]: policy }, false);
      throw new ConflictError('email: An account with this email cannot be created. If you already have one, sign in instead.');
    }
    const actor: AuditActor = { kind: 'user', userId: created.userId, email, ip: client.ip };
    await this.audit.record({ accountId: created.accountId, actor, action: 'user.signed_up', target: email });
    return this.start({ userId: created.userId, accountId: created.accountId }, client);
  }

  /**
   * `join`, when given, runs once the password is right and names the account to open (accepting an
   * invitation by signing in adds the membership there); otherwise sign-in opens accountToOpen's.
   */
  async signIn(
    credentials: Credentials,
    client: ClientInfo,
    previousToken: string | undefined,
    join?: (user: { id: string; emailKey: string }) => Promise<string>,
  ): Promise<StartedSession> {
    const emailKey = credentials.email.trim().toLowerCase();
    const keys = throttleKeys(emailKey, client.ip);
    const policies = { [keys.email]: this.settings.throttle.email, [keys.address]: this.settings.throttle.address };
    await this.admit(policies);

    const user = emailKey.length <= MAX_EMAIL_LENGTH ? await this.users.findUserByEmailKey(emailKey) : null;
    const password = credentials.password.slice(0, MAX_PASSWORD_LENGTH + 1);
    const ok = user ? await this.hasher.verify(password, user.passwordHash) : await this.hasher.verifyDecoy(password);
    await this.settle(policies, ok, keys.address);
    // Failures for an address with no user belong to no account: the throttle counts them, the audit log cannot.
    const actor: AuditActor | null = user && { kind: 'user', userId: user.id, email: user.email, ip: client.ip };
    if (user?.accountId && actor && !ok) await this.audit.record({ accountId: user.accountId, actor, action: 'user.sign_in_failed', target: user.email });
    if (!user || !ok) throw new UnauthorizedError('Email or password is incorrect.');
    // The account the user last worked on, or another they belong to (docs/dashboard.md, "Switching accounts").
    const accountId = join ? await join({ id: user.id, emailKey: user.emailKey }) : await this.users.accountToOpen(user.id);
    if (!accountId) throw new ForbiddenError('You are not a member of any account any more. Ask an owner or admin of your team to invite you again.');

    await this.users.recordSignIn(user.id, this.hasher.needsRehash(user.passwordHash) ? await this.hasher.hash(password) : null);
    // A new token at every sign-in: a token planted before it (session fixation) is worth nothing.
    if (previousToken) await this.users.deleteSessionByTokenHash(hashSessionToken(previousToken));
    if (actor) await this.audit.record({ accountId, actor, action: 'user.signed_in', target: user.email });
    return this.start({ userId: user.id, accountId }, client);
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
    await this.admit(policies);
    const ok = await this.hasher.verify(input.currentPassword.slice(0, MAX_PASSWORD_LENGTH + 1), user.passwordHash);
    await this.settle(policies, ok, keys.address);
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

  /** Refuses with 429 (and Retry-After) when any counter says wait; otherwise counts this attempt. */
  private async admit(policies: Record<string, ThrottlePolicy>): Promise<void> {
    const retryAfter = await this.throttle.update(Object.keys(policies), (states) => {
      const now = new Date();
      const writes = new Map<string, ThrottleState>();
      let wait = 0;
      for (const [key, state] of states) {
        const decision = decideAttempt(state, now, policies[key]);
        if (decision.allowed) writes.set(key, decision.next);
        else wait = Math.max(wait, decision.retryAfterSeconds);
      }
      return wait > 0 ? { writes: new Map(), result: wait } : { writes, result: 0 };
    });
    if (retryAfter > 0) {
      const minutes = Math.ceil(retryAfter / 60);
      const when = retryAfter < 60 ? `${retryAfter} second${retryAfter === 1 ? '' : 's'}` : `${minutes} minute${minutes === 1 ? '' : 's'}`;
      throw new RateLimitError(`Too many attempts. Wait ${when} and try again.`, retryAfter);
    }
  }

  /** After the password check: failures may lock; a success takes the attempt back. */
  private async settle(policies: Record<string, ThrottlePolicy>, ok: boolean, addressKey?: string): Promise<void> {
    await this.throttle.update(Object.keys(policies), (states) => {
      const now = new Date();
      const writes = new Map<string, ThrottleState>();
      for (const [key, state] of states) {
        writes.set(key, ok ? afterSuccess(state, key === addressKey ? 'address' : 'email') : afterFailure(state, now, policies[key]));
      }
      return { writes, result: undefined };
    });
  }

  /** A new session of the user on one of their accounts (sign-in, sign-up, accepting an invitation). */
  async start(owner: { userId: string; accountId: string }, client: ClientInfo): Promise<StartedSession> {
    const token = newToken();
    const ttl = this.settings.sessionTtlSeconds;
    await this.users.insertSession({
      id: randomUUID(),
      tokenHash: hashSessionToken(token),
      userId: owner.userId,
      accountId: owner.accountId,
      csrfToken: newToken(),
      expiresAt: new Date(Date.now() + ttl * 1000),
      ip: client.ip.slice(0, 100),
      userAgent: client.userAgent?.slice(0, 500) ?? null,
    });
    const session = await this.users.findLiveSession(hashSessionToken(token), this.settings.sessionIdleSeconds);
    if (!session) throw new Error('session vanished right after it was created');
    return { token, maxAgeSeconds: ttl, session };
  }

  private async removeDeadRows(): Promise<void> {
    try {
      await this.users.deleteDeadSessions(this.settings.sessionIdleSeconds);
      await this.throttle.deleteStale(86_400);
    } catch (error) {
      this.logger.warn({ err: error }, 'dashboard maintenance failed');
    }
  }
}
