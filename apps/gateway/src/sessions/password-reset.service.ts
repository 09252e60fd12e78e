import { Inject, Injectable, Logger } from '@nestjs/common';
import { ValidationError } from '@gen/errors';
import { AuditService } from '../audit-log/audit.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { Mailer } from '../mail/mailer';
import { MAX_EMAIL_LENGTH } from '../users/email-address';
import { PasswordHasher } from '../users/password-hasher';
import { assertNewPassword } from '../users/password-rules';
import { DASHBOARD_SETTINGS, DashboardSettings } from '../settings/dashboard.settings';
import type { ClientInfo } from './sessions.service';
import { hashSessionToken, newToken } from './sessions.service';
import { SignInGate } from './sign-in-gate';
import { UsersRepository } from './users.repository';
import { PasswordResetsRepository } from './password-resets.repository';

/** The one answer to every reset request, whether the address has a user or not. */
export const RESET_REQUESTED_MESSAGE =
  'If an account uses this address, a link to choose a new password is on its way. It works once, for a limited time.';

const INVALID_LINK = 'token: This reset link is not valid: it was used already, has expired, or was replaced by a newer one. Ask for a new one.';

/**
 * "Forgot your password?": a reset link by mail (single use, PASSWORD_RESET_TTL_MINUTES), and the
 * new password set from it, which ends every session of the user. A request answers the same
 * whether or not the address has a user, at once (the mail is sent after the answer), and sends at
 * most one mail per address per PASSWORD_RESET_MAIL_WINDOW_MINUTES, however many requests come.
 */
@Injectable()
export class PasswordResetService {
  private readonly logger = new Logger(PasswordResetService.name);
  private readonly hasher = new PasswordHasher();

  constructor(
    private readonly users: UsersRepository,
    private readonly resets: PasswordResetsRepository,
    private readonly mailer: Mailer,
    private readonly audit: AuditService,
    private readonly gate: SignInGate,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
    @Inject(GATEWAY_SETTINGS) private readonly gateway: GatewaySettings,
  ) {}

  /** Resolves when the request is recorded; the mail, if any, is sent after (`sent` settles when it is). */
  async request(email: string): Promise<{ message: string; sent: Promise<void> }> {
    const emailKey = email.trim().toLowerCase();
    const user = emailKey.length > 0 && emailKey.length <= MAX_EMAIL_LENGTH ? await this.users.findUserByEmailKey(emailKey) : null;
    let sent: Promise<void> = Promise.resolve();
    if (user) {
      const token = newToken();
      const { ttlSeconds, mailWindowSeconds } = this.settings.passwordReset;
      if (await this.resets.open(user.id, hashSessionToken(token), ttlSeconds, mailWindowSeconds)) {
        sent = this.sendLink(user.email, token, ttlSeconds);
      }
    }
    return { message: RESET_REQUESTED_MESSAGE, sent };
  }

  /**
   * Sets the new password from a reset link: every session of the user ends (they sign in again).
   * The route needs no session, so the slow hash runs last: after the per-address throttle, the
   * token check and the password rules. Every attempt counts against the client's address, a good
   * token's too (parallel uses of one link must not each buy a hash); a wrong token may lock it.
   */
  async complete(token: string, newPassword: string, client: ClientInfo): Promise<{ endedSessions: number }> {
    const tokenHash = hashSessionToken(token);
    const policies = { [`password-reset:${client.ip}`]: this.settings.throttle.address };
    await this.gate.admit(policies);
    const open = await this.resets.findOpen(tokenHash);
    if (!open) {
      await this.gate.settle(policies, false);
      throw new ValidationError(INVALID_LINK);
    }
    assertNewPassword('new_password', newPassword, open.emailKey);
    const used = await this.resets.use(tokenHash, await this.hasher.hash(newPassword));
    if (!used) throw new ValidationError(INVALID_LINK);
    // Recorded on the account the user's sign-in opens (a user who belongs to none has no log to write to).
    if (used.accountId) await this.audit.record({
      accountId: used.accountId,
      actor: { kind: 'user', userId: used.userId, email: used.email, ip: client.ip },
      action: 'user.password_reset',
      target: used.email,
      details: { ended_sessions: used.endedSessions },
    });
    this.logger.log({ userId: used.userId, endedSessions: used.endedSessions }, 'password reset');
    return { endedSessions: used.endedSessions };
  }

  private async sendLink(to: string, token: string, ttlSeconds: number): Promise<void> {
    const link = `${this.gateway.publicBaseUrl}/dashboard/reset-password?token=${encodeURIComponent(token)}`;
    const minutes = Math.round(ttlSeconds / 60);
    try {
      await this.mailer.send({
        to,
        subject: 'Choose a new password',
        text: [
          'Someone (we hope you) asked to choose a new password for your Generation Service dashboard.',
          '',
          `Open this link within ${minutes} minutes to choose it (it works once):`,
          link,
          '',
          'Choosing a new password signs you out everywhere. If you did not ask for this, ignore this mail: your password stays as it is.',
        ].join('\n'),
      });
    } catch (error) {
      this.logger.error({ err: error }, 'password reset mail not sent');
    }
  }
}
