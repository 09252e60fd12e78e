import { BalanceReply, Subjects, SubscribeReply } from '@gen/contracts';
import { InProcessBroadcaster, RpcClient } from '@gen/transport';
import type { AuditService } from '../audit-log/audit.service';
import { AccountPlanService } from '../plans/account-plan.service';
import type { GatewaySettings } from '../settings/gateway.tokens';
import { BillingPageService } from './billing-page.service';

/** A billing whose balance answers with the plan as it stands, and whose subscribe changes it (or schedules the change). */
class PlanBilling extends RpcClient {
  rpm = 30;
  balanceCalls = 0;
  constructor(private readonly effective: SubscribeReply['effective']) {
    super();
  }
  async request<TReply>(subject: string): Promise<TReply> {
    if (subject === Subjects.billingBalance) {
      this.balanceCalls++;
      const reply: BalanceReply = { accountId: 'a', plan: 'lite', available: 10, held: 0, limits: { requests_per_minute: this.rpm, parallel_tasks: 2 } };
      return reply as TReply;
    }
    if (subject === Subjects.billingPaymentsSubscribe) {
      if (this.effective === 'now') this.rpm = 60;
      return { effective: this.effective, url: null, plan: 'pro' } as TReply;
    }
    throw new Error(`unexpected ${subject}`);
  }
}

function pageWith(billing: PlanBilling) {
  // No database notice and no broadcast reach this gateway: only its own reply can drop the copy.
  const plans = new AccountPlanService(billing, new InProcessBroadcaster());
  const page = new BillingPageService(billing, {} as AuditService, plans, { publicBaseUrl: 'https://api.example.com' } as GatewaySettings);
  return { plans, page };
}

describe('BillingPageService.subscribe', () => {
  it('an upgrade applied at once: the next request on this gateway has the new limits', async () => {
    const billing = new PlanBilling('now');
    const { plans, page } = pageWith(billing);
    expect((await plans.limits('a')).requests_per_minute).toBe(30);
    await page.subscribe('a', 'pro', 'owner@example.com');
    expect((await plans.limits('a')).requests_per_minute).toBe(60);
    expect(billing.balanceCalls).toBe(2);
  });

  it('a change at the period end keeps the cached limits (nothing changed yet)', async () => {
    const billing = new PlanBilling('period_end');
    const { plans, page } = pageWith(billing);
    await plans.limits('a');
    await page.subscribe('a', 'lite', 'owner@example.com');
    expect((await plans.limits('a')).requests_per_minute).toBe(30);
    expect(billing.balanceCalls).toBe(1);
  });
});
