import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AccessPolicyError, ConflictError, DomainError, ForbiddenError, NotFoundError, RateLimitError, ValidationError } from '@gen/errors';
import type { AuditActor } from '../audit-log/audit-actions';
import { AuditService } from '../audit-log/audit.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { Mailer } from '../mail/mailer';
import { canManageRole, MemberRole, roleWithArticle } from '../memberships/member-role';
import { AcceptedInvitation, AcceptRefusal, InvitationPreview, InvitationsRepository, PendingInvitation } from './invitations.repository';
import type { MemberContext } from '../memberships/members.service';
import { isEmailAddress } from '../users/email-address';
import { PasswordHasher } from '../users/password-hasher';
import { assertNewPassword } from '../users/password-rules';
import { plainName } from '../mail/plain-name';
import { DASHBOARD_SETTINGS, DashboardSettings } from '../settings/dashboard.settings';
import { InvitationMetrics } from './invitation-metrics';
import { ClientInfo, Credentials, hashSessionToken, newToken, SessionsService, StartedSession } from '../sessions/sessions.service';

const INVALID = 'token: This invitation is not valid: it was used already, withdrawn, or replaced by a newer one. Ask for a new invitation.';
const EXPIRED = 'token: This invitation has expired. Ask the person who invited you for a new one.';

/** The error for an invitation that cannot be used (`email`: the address it is for). */
function refusal(reason: AcceptRefusal, email: string): DomainError {
  switch (reason) {
    case 'invalid':
      return new ValidationError(INVALID);
    case 'expired':
      return new ValidationError(EXPIRED);
    case 'other_email':
      return new ForbiddenError(`This invitation is for ${email}: sign in with that address to accept it.`);
    case 'already_member':
      return new ConflictError('You are a member of this account already.');
    case 'email_taken':
      return new ConflictError('email: This address has a dashboard user already: sign in to accept the invitation.');
  }
}

/**
 * Invitations to join an account (docs/guide/dashboard.md, "Invitations"): a mail with a single-use link
 * (INVITATION_TTL_HOURS), accepted by signing in, by a signed-in user of the invited address, or by
 * choosing a password. The last creates the user whatever the sign-up policy: the link proves the
 * address, and sign-up's free account and credits are not given.
 */
@Injectable()
export class InvitationsService {
  private readonly logger = new Logger(InvitationsService.name);
  private readonly hasher = new PasswordHasher();

  constructor(
    private readonly invitations: InvitationsRepository,
    private readonly sessions: SessionsService,
    private readonly mailer: Mailer,
    private readonly audit: AuditService,
    private readonly metrics: InvitationMetrics,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
    @Inject(GATEWAY_SETTINGS) private readonly gateway: GatewaySettings,
  ) {}

  /** Invites an address with a role the inviter may give; 409 when it is a member already. Whether the mail went out is returned. */
  async invite(context: MemberContext & { role: MemberRole; accountName: string; emailVerified: boolean }, input: { email: string; role: MemberRole }, actor: AuditActor): Promise<{ mailed: boolean }> {
    const email = input.email.trim();
    if (!isEmailAddress(email)) throw new ValidationError('email: Enter an email address such as name@example.com.');
    if (!canManageRole(context.role, input.role)) throw new ForbiddenError('Only an owner can invite someone as an owner.');
    await this.admit(context, email.toLowerCase());
    const token = newToken();
    const ttlSeconds = this.settings.invitations.ttlSeconds;
    const opened = await this.invitations.open({
      id: randomUUID(),
      accountId: context.accountId,
      email,
      emailKey: email.toLowerCase(),
      role: input.role,
      tokenHash: hashSessionToken(token),
      invitedBy: context.userId,
      ttlSeconds,
    });
    if (!opened) throw new ConflictError(`email: ${email} is a member of this account already.`);
    await this.audit.record({ accountId: context.accountId, actor, action: 'member.invited', target: email, details: { role: input.role } });
    return { mailed: await this.sendLink({ to: email, token, role: input.role, accountName: context.accountName, inviter: context.email, ttlSeconds }) };
  }

  /**
   * Whether this invitation may be mailed (docs/guide/dashboard.md, "Invitations"): outside `open`
   * sign-up the inviter's own address must be verified, and the account's hourly and the address's
   * daily limits must allow one more mail (re-sends count). Each refusal is counted by reason.
   */
  private async admit(context: { accountId: string; emailVerified: boolean }, emailKey: string): Promise<void> {
    if (this.settings.signUp.mode !== 'open' && !context.emailVerified) {
      this.metrics.refusal('unverified_inviter');
      throw new AccessPolicyError('email_not_verified', 'Verify your email address before inviting anyone: follow the link in the mail we sent you, or ask for a new one.');
    }
    const { perAccountPerHour, perAddressPerDay } = this.settings.invitations;
    const limit = await this.invitations.countMail(context.accountId, emailKey, { perAccountPerHour, perAddressPerDay });
    if (limit === 'account') {
      this.metrics.refusal('account_hourly_limit');
      throw new RateLimitError(`This account has sent ${perAccountPerHour} invitations in the last hour, the most it may. Try again later.`, 3600);
    }
    if (limit === 'address') {
      this.metrics.refusal('address_daily_limit');
      throw new RateLimitError(`This address has been sent ${perAddressPerDay} invitations in the last day, the most it may receive. Try again tomorrow.`, 86_400);
    }
  }

  listPending(accountId: string): Promise<PendingInvitation[]> {
    return this.invitations.listPending(accountId);
  }

  async revoke(accountId: string, invitationId: string, actor: AuditActor): Promise<void> {
    const revoked = await this.invitations.revoke(accountId, invitationId);
    if (!revoked) throw new NotFoundError('No such invitation.');
    await this.audit.record({ accountId, actor, action: 'member.invitation_revoked', target: revoked.email, details: { role: revoked.role } });
  }

  /** What the invitation page shows; 422 for a link that is not (or no longer) valid. */
  async preview(token: string): Promise<InvitationPreview> {
    const preview = await this.invitations.preview(hashSessionToken(token));
    if (!preview) throw new ValidationError(`${INVALID.slice(0, -1)}, or has expired.`);
    return preview;
  }

  /** A signed-in user accepts an invitation to their own address; returns the account joined. */
  async acceptSignedIn(user: { userId: string; email: string }, token: string, client: ClientInfo): Promise<AcceptedInvitation> {
    const accepted = await this.invitations.acceptAsUser(hashSessionToken(token), { id: user.userId, emailKey: user.email.toLowerCase() });
    if (typeof accepted === 'string') throw refusal(accepted, (await this.invitations.preview(hashSessionToken(token)))?.email ?? 'another address');
    await this.joined(accepted, client);
    return accepted;
  }

  /** Accepts by signing in (the invitation's address and its password): the session opens on the account joined. */
  async acceptWithSignIn(token: string, credentials: Credentials, client: ClientInfo, previousToken: string | undefined): Promise<StartedSession> {
    const preview = await this.preview(token);
    if (credentials.email.trim().toLowerCase() !== preview.emailKey) throw new ValidationError(`email: This invitation is for ${preview.email}.`);
    return this.sessions.signIn(credentials, client, previousToken, async (user) => {
      const accepted = await this.invitations.acceptAsUser(hashSessionToken(token), user);
      if (accepted === 'already_member') return preview.accountId;
      if (typeof accepted === 'string') throw refusal(accepted, preview.email);
      await this.joined(accepted, client);
      return accepted.accountId;
    });
  }

  /**
   * Accepts by choosing a password: creates the user of the invited address (verified by the link,
   * so no sign-up policy applies) and a session on the account. 409 when the address has a user already.
   */
  async acceptWithNewUser(token: string, password: string, client: ClientInfo): Promise<StartedSession> {
    const preview = await this.preview(token);
    assertNewPassword('password', password, preview.emailKey);
    const accepted = await this.invitations.acceptAsNewUser(hashSessionToken(token), { id: randomUUID(), passwordHash: await this.hasher.hash(password) });
    if (typeof accepted === 'string') throw refusal(accepted, preview.email);
    await this.joined(accepted, client);
    return this.sessions.start({ userId: accepted.userId, accountId: accepted.accountId }, client);
  }

  private async joined(accepted: AcceptedInvitation, client: ClientInfo): Promise<void> {
    const actor: AuditActor = { kind: 'user', userId: accepted.userId, email: accepted.email, ip: client.ip };
    await this.audit.record({ accountId: accepted.accountId, actor, action: 'member.joined', target: accepted.email, details: { role: accepted.role } });
  }

  private async sendLink(m: { to: string; token: string; role: MemberRole; accountName: string; inviter: string; ttlSeconds: number }): Promise<boolean> {
    const link = `${this.gateway.publicBaseUrl}/dashboard/invitation?token=${encodeURIComponent(m.token)}`;
    const hours = Math.round(m.ttlSeconds / 3600);
    try {
      const outcome = await this.mailer.send({
        to: m.to,
        subject: `Join ${plainName(m.accountName)} on the Generation Service`,
        text: [
          // Typed names, as plain text a mail reader cannot make a link of (plain-name.ts).
          `${plainName(m.inviter, 'email')} invited you to join the account "${plainName(m.accountName)}" on the Generation Service dashboard as ${roleWithArticle(m.role)}.`,
          '',
          `Open this link within ${hours} hours to accept (it works once):`,
          link,
          '',
          'If you do not know why you received this, ignore this mail: nothing happens unless the link is opened.',
        ].join('\n'),
      });
      return outcome.via !== 'none';
    } catch (error) {
      this.logger.error({ err: error }, 'invitation mail not sent');
      return false;
    }
  }
}
