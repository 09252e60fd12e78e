import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AccountBillingNoticeEvent, BillingNoticeKind } from '@gen/contracts';
import type { AuditAction, AuditActor } from '../audit-log/audit-actions';
import { AuditService } from '../audit-log/audit.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { LowBalanceRepository } from '../low-balance/low-balance.repository';
import { Mailer } from '../mail/mailer';
import { MembersRepository } from '../memberships/members.repository';

/** The audit log's entry of each notice. */
const ACTIONS: Record<BillingNoticeKind, AuditAction> = {
  payment_refunded: 'account.payment_refunded',
  payment_disputed: 'account.payment_disputed',
  account_restricted: 'account.restricted',
  subscription_changed: 'account.subscription_changed',
  renewal_failed: 'account.renewal_failed',
  top_up_failed: 'account.top_up_failed',
};

/**
 * The audit log's actor of what Stripe's events cause: the payment provider acting for the
 * operator (the log's actor kinds are a user or the operator; its CHECK constraint allows no other).
 */
export const STRIPE_ACTOR: AuditActor = { kind: 'operator', name: 'stripe' };

/**
 * `account.billing_notice` on the gateway: an audit entry and a mail to each owner of the account
 * (they hold the card). The mails are recorded per event and address, so an event handled again
 * mails only those not reached yet (the same record the low-balance mails use).
 */
@Injectable()
export class BillingNotices {
  private readonly logger = new Logger(BillingNotices.name);

  constructor(
    private readonly audit: AuditService,
    private readonly members: MembersRepository,
    private readonly mails: LowBalanceRepository,
    private readonly mailer: Mailer,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  async onNotice(event: AccountBillingNoticeEvent): Promise<void> {
    const mailed = await this.mails.mailed(event.eventId);
    // The audit entry once: written with the first mail's record (or alone, with no owner to mail).
    if (mailed.size === 0) {
      await this.audit.record({ accountId: event.accountId, actor: STRIPE_ACTOR, action: ACTIONS[event.kind], target: event.accountId, details: { ...event.details, message: event.message } });
    }
    const owners = await this.members.emailsWithRoles(event.accountId, ['owner']);
    const accountName = (await this.mails.accountName(event.accountId)) ?? event.accountId;
    for (const email of owners) {
      const key = email.toLowerCase();
      if (mailed.has(key)) continue;
      await this.mailer.send({
        to: email,
        subject: `${event.subject} (${accountName})`,
        text: [event.message, '', 'The Billing page shows the account\'s payments and receipts:', `${this.settings.publicBaseUrl}/dashboard/billing`].join('\n'),
      });
      await this.mails.recordMailed(event.eventId, event.accountId, key);
    }
    if (owners.length === 0) await this.mails.recordMailed(event.eventId, event.accountId, '(audit)');
    this.logger.log({ eventId: event.eventId, accountId: event.accountId, kind: event.kind, owners: owners.length }, 'billing notice handled');
  }
}
