import { Injectable } from '@nestjs/common';
import { BalanceReply, BalanceRequest, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';

/**
 * The caller's plan and limits, from billing, cached briefly per account: every request needs
 * them (rate limits, parallel slots, plan gating) and they change rarely.
 */
@Injectable()
export class AccountPlanService {
  private readonly cache = new Map<string, { value: Promise<BalanceReply>; expires: number }>();
  private readonly ttlMs = 5_000;

  constructor(private readonly rpc: RpcClient) {}

  get(accountId: string): Promise<BalanceReply> {
    const now = Date.now();
    const hit = this.cache.get(accountId);
    if (hit && hit.expires > now) return hit.value;
    const value = this.rpc.request<BalanceReply, BalanceRequest>(Subjects.billingBalance, { accountId });
    this.cache.set(accountId, { value, expires: now + this.ttlMs });
    value.catch(() => this.cache.delete(accountId));
    if (this.cache.size > 10_000) this.cache.clear();
    return value;
  }

  /** Fresh numbers (GET /credits must show the balance as it is now). */
  fresh(accountId: string): Promise<BalanceReply> {
    this.cache.delete(accountId);
    return this.get(accountId);
  }
}
