import { Inject, Injectable, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { AccountChangedBroadcast, BalanceReply, BalanceRequest, Broadcasts, DatabaseChannels, Subjects } from '@gen/contracts';
import { PgNotifications } from '@gen/persistence';
import { Broadcaster, RpcClient } from '@gen/transport';

/**
 * The caller's plan and limits, from billing, cached briefly per account: every request needs
 * them (rate limits, parallel slots, plan gating) and they change rarely. So a request asks billing
 * at most once per account every 5 s per gateway, never per request. A plan change drops the
 * account's copy on every gateway at once: the `auth.account-changed` broadcast (the operator CLI's
 * `plans set`, relayed over NATS) and the database's own notice at the commit (`gen_account_changed`,
 * whoever the writer: the CLI against a running standalone, a gateway cut off from NATS).
 */
@Injectable()
export class AccountPlanService implements OnModuleInit, OnModuleDestroy {
  private readonly cache = new Map<string, { value: Promise<BalanceReply>; expires: number }>();
  private readonly ttlMs = 5_000;
  /** The last limits seen per account, used when billing does not answer (see limits()). */
  private readonly lastKnown = new Map<string, { limits: BalanceReply['limits']; at: number }>();
  private readonly staleLimitsMs = 10 * 60_000;

  private readonly unsubscribes: Array<() => void> = [];

  constructor(
    private readonly rpc: RpcClient,
    private readonly broadcaster: Broadcaster,
    @Optional() @Inject(PgNotifications) private readonly notifications: PgNotifications | null = null,
  ) {}

  onModuleInit(): void {
    this.unsubscribes.push(this.broadcaster.subscribe(Broadcasts.accountChanged, (payload) => this.drop(payload)));
    if (this.notifications) {
      this.unsubscribes.push(this.notifications.listen(DatabaseChannels.accountChanged, (payload) => this.drop(parseJson(payload))));
      // Notices may have been missed while the listening connection was down: every copy goes.
      this.unsubscribes.push(this.notifications.onResync(() => this.cache.clear()));
    }
  }

  onModuleDestroy(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
  }

  /** Drops the named account's copy (every copy when the payload names none). */
  private drop(payload: unknown): void {
    const accountId = (payload as Partial<AccountChangedBroadcast> | null)?.accountId;
    if (typeof accountId === 'string') this.forget(accountId);
    else this.cache.clear();
  }

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

  /**
   * The account's limits. Every authenticated request needs them (rate limit), including reads that
   * do not otherwise touch billing: while billing does not answer, the last limits seen in the past
   * ten minutes keep those requests working.
   */
  async limits(accountId: string): Promise<BalanceReply['limits']> {
    try {
      const { limits } = await this.get(accountId);
      if (this.lastKnown.size > 10_000) this.lastKnown.clear();
      this.lastKnown.set(accountId, { limits, at: Date.now() });
      return limits;
    } catch (error) {
      const stale = this.lastKnown.get(accountId);
      if (stale && Date.now() - stale.at < this.staleLimitsMs) return stale.limits;
      throw error;
    }
  }

  /**
   * Drops the account's copy now. For a change this gateway made itself (a plan upgrade from the
   * Billing page): the database's notice comes back asynchronously, and the very next request must
   * already see the new limits.
   */
  forget(accountId: string): void {
    this.cache.delete(accountId);
  }

  /** Fresh numbers (GET /credits must show the balance as it is now). */
  fresh(accountId: string): Promise<BalanceReply> {
    this.cache.delete(accountId);
    return this.get(accountId);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
