import { Injectable } from '@nestjs/common';
import { AccountEventsListRequest, GetLowBalanceRequest, ListWebhookDeliveriesReply, LowBalanceReply, LowBalanceView, SetLowBalanceRequest, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { AuditActor } from '../audit-log/audit-actions';
import { AuditService } from '../audit-log/audit.service';

/**
 * An account's low-balance threshold as the dashboard and the operator CLI set it. Billing stores it
 * and detects the crossing (docs/guide/limits.md, "Low-balance alerts").
 */
@Injectable()
export class LowBalanceAlertsService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: AuditService,
  ) {}

  get(accountId: string): Promise<LowBalanceView> {
    return this.rpc.request<LowBalanceView, GetLowBalanceRequest>(Subjects.billingLowBalanceGet, { accountId });
  }

  /** The setting and the account events' log, as the dashboard's account page shows them. */
  async view(accountId: string): Promise<LowBalanceReply> {
    const [setting, log] = await Promise.all([
      this.get(accountId),
      this.rpc.request<ListWebhookDeliveriesReply, AccountEventsListRequest>(Subjects.webhooksAccountEventsList, { accountId, limit: 5 }),
    ]);
    return { ...setting, deliveries: log.data };
  }

  /** Billing checks the value (whole credits, 0 to 2147483647; 0 or null: off); audited once it is set. */
  async set(accountId: string, threshold: number | null, actor: AuditActor): Promise<LowBalanceView> {
    const view = await this.rpc.request<LowBalanceView, SetLowBalanceRequest>(Subjects.billingLowBalanceSet, { accountId, threshold });
    await this.audit.record({ accountId, actor, action: 'account.low_balance_threshold_set', target: accountId, details: { threshold: view.threshold } });
    return view;
  }
}
