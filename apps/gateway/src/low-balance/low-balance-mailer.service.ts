import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AccountLowBalanceEvent } from '@gen/contracts';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { MembersRepository } from '../memberships/members.repository';
import { Mailer } from '../mail/mailer';
import { lowBalanceMail } from './low-balance-mail';
import { LowBalanceRepository } from './low-balance.repository';

/** Who gets the mail. */
export const LOW_BALANCE_RECIPIENT_ROLES = ['owner', 'admin'] as const;

/** The mail of an `account.low_balance` event to the account's owners and admins (the dashboard's gateways). */
@Injectable()
export class LowBalanceMailer {
  private readonly logger = new Logger(LowBalanceMailer.name);

  constructor(
    private readonly repository: LowBalanceRepository,
    private readonly members: MembersRepository,
    private readonly mailer: Mailer,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  /**
   * One mail per recipient, each recorded once sent: an event handled again (a mail failed, so this
   * threw and the event comes back) mails only those not reached yet. The transport checked the
   * event's shape (AccountLowBalanceEvent) before this runs.
   */
  async onLowBalance(event: AccountLowBalanceEvent): Promise<void> {
    const recipients = await this.members.emailsWithRoles(event.accountId, LOW_BALANCE_RECIPIENT_ROLES);
    if (recipients.length === 0) return;
    const accountName = (await this.repository.accountName(event.accountId)) ?? event.accountId;
    const mailed = await this.repository.mailed(event.eventId);
    for (const email of recipients) {
      const emailKey = email.toLowerCase();
      if (mailed.has(emailKey)) continue;
      await this.mailer.send(lowBalanceMail(email, accountName, event, this.settings.publicBaseUrl));
      await this.repository.recordMailed(event.eventId, event.accountId, emailKey);
    }
    this.logger.log({ eventId: event.eventId, accountId: event.accountId, recipients: recipients.length }, 'low-balance alert mailed');
  }
}
