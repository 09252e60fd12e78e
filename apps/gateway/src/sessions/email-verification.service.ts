import { Inject, Injectable, Logger } from '@nestjs/common';
import { AccessPolicyError, ConflictError, RateLimitError, ValidationError } from '@gen/errors';
import { AuditService } from '../audit-log/audit.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { Mailer } from '../mail/mailer';
import { DASHBOARD_SETTINGS, DashboardSettings } from '../settings/dashboard.settings';
import type { ClientInfo } from './session-starter';
import { hashSessionToken, newToken } from './session-starter';
import type { LiveSession } from './users.repository';
import { EmailVerificationsRepository } from './email-verifications.repository';

export const INVALID_VERIFICATION_LINK =
  'token: This verification link is not valid: it was used already, has expired, or was replaced by a newer one. Ask for a new one.';

/**
 * Sign-up email verification (docs/guide/dashboard.md, "Sign-up"): a mail with a single-use link
 * (EMAIL_VERIFICATION_TTL_HOURS), sent at sign-up and on request (at most one per
 * EMAIL_VERIFICATION_MAIL_WINDOW_MINUTES), and the rule that, unless SIGNUP_MODE is `open`, a user
 * whose email is not verified cannot create API keys.
 */
@Injectable()
export class EmailVerificationService {
  private readonly logger = new Logger(EmailVerificationService.name);

  constructor(
    private readonly verifications: EmailVerificationsRepository,
    private readonly mailer: Mailer,
    private readonly audit: AuditService,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
    @Inject(GATEWAY_SETTINGS) private readonly gateway: GatewaySettings,
  ) {}

  /** Whether this deployment lets an unverified user create keys (SIGNUP_MODE=open). */
  get required(): boolean {
    return this.settings.signUp.mode !== 'open';
  }

  /** After sign-up: mails the link. Resolves when the link is stored; a mail that fails is logged, sign-up stands. */
  async sendAfterSignUp(user: { userId: string; email: string }): Promise<{ sent: Promise<void> }> {
    const token = newToken();
    const { ttlSeconds, mailWindowSeconds } = this.settings.emailVerification;
    const wait = await this.verifications.open(user.userId, hashSessionToken(token), ttlSeconds, mailWindowSeconds);
    return { sent: wait === 0 ? this.sendLink(user.email, token, ttlSeconds) : Promise.resolve() };
  }

  /** "Send the mail again": refused when verified already, or (429) within the window of the last mail. */
  async resend(session: LiveSession): Promise<void> {
    if (session.emailVerified) throw new ConflictError('Your email address is verified already.');
    const token = newToken();
    const { ttlSeconds, mailWindowSeconds } = this.settings.emailVerification;
    const wait = await this.verifications.open(session.userId, hashSessionToken(token), ttlSeconds, mailWindowSeconds);
    if (wait > 0) throw new RateLimitError(`A verification mail was sent a moment ago. Wait ${wait} seconds before asking for another.`, wait);
    await this.sendLink(session.email, token, ttlSeconds);
  }

  /** Follows a link: the user's email is verified (recorded in the audit log). Any browser may open it: the token is the proof. */
  async verify(token: string, client: ClientInfo): Promise<{ email: string }> {
    const used = await this.verifications.use(hashSessionToken(token));
    if (!used) throw new ValidationError(INVALID_VERIFICATION_LINK);
    await this.audit.record({
      accountId: used.accountId,
      actor: { kind: 'user', userId: used.userId, email: used.email, ip: client.ip },
      action: 'user.email_verified',
      target: used.email,
    });
    return { email: used.email };
  }

  /** Creating an API key needs a verified email unless SIGNUP_MODE is `open`. */
  assertMayCreateKeys(session: LiveSession): void {
    if (this.required && !session.emailVerified) {
      throw new AccessPolicyError(
        'email_not_verified',
        'Verify your email address before creating API keys: follow the link in the mail we sent you, or ask for a new one.',
      );
    }
  }

  private async sendLink(to: string, token: string, ttlSeconds: number): Promise<void> {
    const link = `${this.gateway.publicBaseUrl}/dashboard/verify-email?token=${encodeURIComponent(token)}`;
    const hours = Math.round(ttlSeconds / 3600);
    try {
      await this.mailer.send({
        to,
        subject: 'Verify your email address',
        text: [
          'Welcome to the Generation Service. Please confirm that this address is yours.',
          '',
          `Open this link within ${hours} hour${hours === 1 ? '' : 's'} (it works once):`,
          link,
          '',
          'If you did not sign up, ignore this mail: nothing will be done with this address.',
        ].join('\n'),
      });
    } catch (error) {
      this.logger.error({ err: error }, 'verification mail not sent');
    }
  }
}
