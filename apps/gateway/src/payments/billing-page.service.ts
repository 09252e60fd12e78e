import { Inject, Injectable } from '@nestjs/common';
import {
  CheckoutReply,
  CreateCheckoutRequest,
  CreatePortalRequest,
  ListInvoicesReply,
  ListInvoicesRequest,
  ListPurchasesReply,
  ListPurchasesRequest,
  PaymentsOverview,
  PaymentsOverviewRequest,
  PlanName,
  PortalReply,
  Subjects,
  SubscribeReply,
  SubscribeRequest,
  GetTopUpRequest,
  SetTopUpRequest,
  TopUpView,
} from '@gen/contracts';
import type { AuditActor } from '../audit-log/audit-actions';
import { AuditService } from '../audit-log/audit.service';
import { RpcClient } from '@gen/transport';
import { AccountPlanService } from '../plans/account-plan.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';

/** The dashboard's Billing page: what billing answers, with the page's own URL for Stripe to send the customer back to. */
@Injectable()
export class BillingPageService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: AuditService,
    private readonly plans: AccountPlanService,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  private page(query = ''): string {
    return `${this.settings.publicBaseUrl}/dashboard/billing${query}`;
  }

  overview(accountId: string): Promise<PaymentsOverview> {
    return this.rpc.request<PaymentsOverview, PaymentsOverviewRequest>(Subjects.billingPaymentsOverview, { accountId });
  }

  purchases(accountId: string, limit: number): Promise<ListPurchasesReply> {
    return this.rpc.request<ListPurchasesReply, ListPurchasesRequest>(Subjects.billingPaymentsPurchases, { accountId, limit });
  }

  invoices(accountId: string, limit: number): Promise<ListInvoicesReply> {
    return this.rpc.request<ListInvoicesReply, ListInvoicesRequest>(Subjects.billingPaymentsInvoices, { accountId, limit });
  }

  checkout(accountId: string, packId: string, email: string): Promise<CheckoutReply> {
    return this.rpc.request<CheckoutReply, CreateCheckoutRequest>(Subjects.billingPaymentsCheckout, {
      accountId,
      packId,
      email,
      // {CHECKOUT_SESSION_ID} is Stripe's placeholder: the page can say which purchase came back.
      successUrl: this.page('?checkout=success&session_id={CHECKOUT_SESSION_ID}'),
      cancelUrl: this.page('?checkout=canceled'),
    });
  }

  async subscribe(accountId: string, plan: PlanName, email: string): Promise<SubscribeReply> {
    const reply = await this.rpc.request<SubscribeReply, SubscribeRequest>(Subjects.billingPaymentsSubscribe, {
      accountId,
      plan,
      email,
      successUrl: this.page('?subscription=success'),
      cancelUrl: this.page('?subscription=canceled'),
    });
    // An upgrade applied already: this gateway's next request for the account has the new limits
    // (other gateways drop their copy at the database's notice of the change).
    if (reply.effective === 'now') this.plans.forget(accountId);
    return reply;
  }

  topUp(accountId: string): Promise<TopUpView> {
    return this.rpc.request<TopUpView, GetTopUpRequest>(Subjects.billingPaymentsTopUpGet, { accountId });
  }

  /** Billing checks the pack, the saved card and the threshold; audited once set. */
  async setTopUp(accountId: string, packId: string | null, threshold: number | null, actor: AuditActor): Promise<TopUpView> {
    const view = await this.rpc.request<TopUpView, SetTopUpRequest>(Subjects.billingPaymentsTopUpSet, { accountId, packId, threshold });
    await this.audit.record({ accountId, actor, action: 'account.top_up_set', target: accountId, details: { pack_id: view.pack_id, threshold: view.threshold } });
    return view;
  }

  portal(accountId: string, email: string): Promise<PortalReply> {
    return this.rpc.request<PortalReply, CreatePortalRequest>(Subjects.billingPaymentsPortal, { accountId, email, returnUrl: this.page() });
  }
}
