import type { AccountLowBalanceEvent } from '@gen/contracts';
import type { MailMessage } from '../mail/mailer';

/** The mail to one owner or admin: the balance, the threshold, and where to top up or change it. */
export function lowBalanceMail(to: string, accountName: string, event: AccountLowBalanceEvent, dashboardUrl: string): MailMessage {
  return {
    to,
    subject: `Low balance: ${event.available} credits left on ${accountName}`,
    text: [
      `The available credits of the account "${accountName}" fell below your alert threshold of ${event.threshold} credits.`,
      `Available now: ${event.available} credits (at ${event.crossedAt}).`,
      '',
      'New generations are refused once the balance cannot cover them. Add credits, or change the',
      'threshold (Settings, Account) here:',
      `${dashboardUrl}/dashboard/settings/account`,
      '',
      'You get this mail once per crossing: the next one comes after the balance is back at or above the threshold.',
    ].join('\n'),
  };
}
