import { BalanceReply, Broadcasts } from '@gen/contracts';
import { ServiceUnavailableError } from '@gen/errors';
import { InProcessBroadcaster, RpcClient } from '@gen/transport';
import { AccountPlanService } from './account-plan.service';

/** A billing that answers from a queue of replies (or failures). */
class ScriptedBilling extends RpcClient {
  calls = 0;
  constructor(private readonly replies: Array<BalanceReply | Error>) {
    super();
  }
  async request<TReply>(): Promise<TReply> {
    this.calls++;
    const next = this.replies.shift() ?? new ServiceUnavailableError();
    if (next instanceof Error) throw next;
    return next as TReply;
  }
}

const balance = (rpm: number): BalanceReply => ({
  accountId: 'a',
  plan: 'pro',
  available: 10,
  held: 0,
  limits: { requests_per_minute: rpm, parallel_tasks: 3 },
});

describe('AccountPlanService.limits', () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-01T10:00:00Z'), doNotFake: ['nextTick', 'setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  it('caches for 5 s, then asks billing again (a plan change applies within 5 s)', async () => {
    const billing = new ScriptedBilling([balance(60), balance(120)]);
    const plans = new AccountPlanService(billing, new InProcessBroadcaster());
    expect((await plans.limits('a')).requests_per_minute).toBe(60);
    jest.setSystemTime(Date.now() + 4_000);
    expect((await plans.limits('a')).requests_per_minute).toBe(60);
    jest.setSystemTime(Date.now() + 1_500);
    expect((await plans.limits('a')).requests_per_minute).toBe(120);
    expect(billing.calls).toBe(2);
  });

  it('keeps answering with the last limits seen (up to 10 min) while billing does not answer', async () => {
    const billing = new ScriptedBilling([balance(60), new ServiceUnavailableError(), new ServiceUnavailableError()]);
    const plans = new AccountPlanService(billing, new InProcessBroadcaster());
    await plans.limits('a');
    jest.setSystemTime(Date.now() + 6_000);
    expect((await plans.limits('a')).requests_per_minute).toBe(60);
    jest.setSystemTime(Date.now() + 10 * 60_000);
    await expect(plans.limits('a')).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('fails with billing\'s error for an account it has never seen', async () => {
    const plans = new AccountPlanService(new ScriptedBilling([new ServiceUnavailableError()]), new InProcessBroadcaster());
    await expect(plans.limits('a')).rejects.toMatchObject({ code: 'service_unavailable' });
  });

  it('asks billing again at once when an account change is broadcast (for that account only)', async () => {
    const broadcaster = new InProcessBroadcaster();
    const billing = new ScriptedBilling([balance(60), { ...balance(90), accountId: 'b' }, balance(120)]);
    const plans = new AccountPlanService(billing, broadcaster);
    plans.onModuleInit();
    expect((await plans.limits('a')).requests_per_minute).toBe(60);
    expect((await plans.limits('b')).requests_per_minute).toBe(90);
    await broadcaster.publishAndFlush(Broadcasts.accountChanged, { accountId: 'a' });
    expect((await plans.limits('a')).requests_per_minute).toBe(120);
    expect((await plans.limits('b')).requests_per_minute).toBe(90);
    expect(billing.calls).toBe(3);
    plans.onModuleDestroy();
  });
});
