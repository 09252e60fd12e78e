import { randomUUID } from 'node:crypto';
import { billingTestKit } from '../test/billing-test-kit';
import { LedgerService } from './ledger.service';

/** Integration: real PostgreSQL. The ledger as clients read it, and usage computed in SQL. */
describe('LedgerService (PostgreSQL)', () => {
  const kit = billingTestKit('ledger');
  const { openAccount } = kit;
  let ledger: LedgerService;
  beforeAll(() => {
    ledger = new LedgerService(kit.repository.ledger);
  });

  it('pages the ledger newest first, each entry with its generation, model and the balance after it', async () => {
    const accountId = await openAccount(100);
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    await kit.repository.reserve(accountId, a, 4, 4, 'pixel-flux-1');
    await kit.repository.reserve(accountId, b, 10, 10, 'motion-lite-1');
    await kit.repository.settle(a, 'capture', null);
    await kit.repository.settle(b, 'release', 'generation failed');
    await kit.repository.adjust(accountId, 25, 'invoice 42');
    await kit.repository.reserve(accountId, c, 6, 6, 'tone-weaver-1'); // still held
    // Another account's rows never show.
    const other = await openAccount(50);
    await kit.repository.reserve(other, randomUUID(), 4, 4, 'pixel-flux-1');

    const entries = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ledger.page({ accountId, limit: 2, cursor });
      expect(page.data.length).toBeLessThanOrEqual(2);
      entries.push(...page.data);
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(entries.map((e) => [e.kind, e.amount, e.held_change, e.balance_after, e.generation_id, e.model, e.note])).toEqual([
      ['hold', -6, 6, 115, c, 'tone-weaver-1', null],
      ['grant', 25, 0, 121, null, null, 'invoice 42'],
      ['release', 10, -10, 96, b, 'motion-lite-1', 'generation failed'],
      ['capture', 0, -4, 86, a, 'pixel-flux-1', null],
      ['hold', -10, 10, 86, b, 'motion-lite-1', null],
      ['hold', -4, 4, 96, a, 'pixel-flux-1', null],
      ['grant', 100, 0, 100, null, null, 'opening grant'],
    ]);
    expect(new Set(entries.map((e) => e.id)).size).toBe(7);
    for (const e of entries) expect(new Date(e.created_at).toISOString()).toBe(e.created_at);
    expect(await kit.repository.findAccount(accountId)).toMatchObject({ available: 115, held: 6 });
  });

  it('refuses a bad limit or cursor, and an unknown account has an empty ledger', async () => {
    const accountId = await openAccount(1);
    await expect(ledger.page({ accountId, limit: 0 })).rejects.toThrow('limit must be an integer between 1 and 500');
    await expect(ledger.page({ accountId, limit: 501 })).rejects.toThrow('limit must be');
    await expect(ledger.page({ accountId, limit: 5, cursor: 'nope' })).rejects.toThrow('cursor: not a cursor');
    await expect(ledger.page({ accountId: 'x', limit: 5 })).rejects.toThrow('accountId must be a UUID');
    await expect(ledger.page({ accountId: randomUUID(), limit: 5 })).resolves.toEqual({ data: [], next_cursor: null });
  });

  it('sums spending per UTC day and per model over the period, with refunds, in SQL', async () => {
    const accountId = await openAccount(1000);
    const charge = async (model: string, amount: number, daysAgo: number, outcome: 'capture' | 'release' = 'capture') => {
      const jobId = randomUUID();
      await kit.repository.reserve(accountId, jobId, amount, amount, model);
      await kit.repository.settle(jobId, outcome, null);
      await kit.dataSource.query(
        `UPDATE ledger SET created_at = created_at - make_interval(days => $2) WHERE job_id = $1 AND kind IN ('capture', 'release')`,
        [jobId, daysAgo],
      );
    };
    await charge('pixel-flux-1', 4, 0);
    await charge('pixel-flux-1', 4, 0);
    await charge('motion-lite-1', 10, 0);
    await charge('motion-lite-1', 10, 2);
    await charge('tone-weaver-1', 6, 2, 'release'); // refunded: not spending
    await charge('pixel-flux-1', 4, 29);
    await charge('pixel-flux-1', 4, 31); // before the period

    const usage = await ledger.usage({ accountId, days: 30 });
    expect(usage.days).toHaveLength(30);
    expect(usage.days[29].date).toBe(usage.to);
    expect(usage.days[0].date).toBe(usage.from);
    expect(usage.days[29]).toEqual({ date: usage.to, credits: 18, generations: 3, by_model: { 'pixel-flux-1': 8, 'motion-lite-1': 10 } });
    expect(usage.days[27]).toEqual({ date: usage.days[27].date, credits: 10, generations: 1, by_model: { 'motion-lite-1': 10 } });
    expect(usage.days[0]).toMatchObject({ credits: 4, generations: 1, by_model: { 'pixel-flux-1': 4 } });
    expect(usage.days.reduce((sum, d) => sum + d.credits, 0)).toBe(32);
    expect(usage.models).toEqual([
      { model: 'motion-lite-1', credits: 20, generations: 2 },
      { model: 'pixel-flux-1', credits: 12, generations: 3 },
    ]);
    expect(usage.total).toEqual({ credits: 32, generations: 5, refunds: 1 });

    const empty = await ledger.usage({ accountId: await openAccount(5), days: 7 });
    expect(empty.days).toHaveLength(7);
    expect(empty.days.every((d) => d.credits === 0 && d.generations === 0)).toBe(true);
    expect(empty.models).toEqual([]);
    expect(empty.total).toEqual({ credits: 0, generations: 0, refunds: 0 });
    await expect(ledger.usage({ accountId, days: 0 })).rejects.toThrow('days must be');
  });
});
