import type { ClaimedAttempt, NewDelivery } from '../deliveries/delivery-attempt';
import { newDelivery } from '../test/deliveries';
import { AttemptSlots } from './attempt-slots';
import { NewDeliveryWriter } from './new-delivery.writer';

/** Admission on a fake clock over a repository stub: which deliveries are written, together, and claimed. */
describe('NewDeliveryWriter', () => {
  const T = Date.UTC(2026, 0, 1, 12, 0, 0);
  const settings = { insertBatch: 3, insertConcurrency: 1, admissionWaitMs: 250, leaseMs: 15_000 };
  let inserts: Array<{ ids: string[]; claimCount: number }>;
  let stored: Array<{ claimed: string[]; unclaimed: string[] }>;
  let slots: AttemptSlots;
  let writer: NewDeliveryWriter;

  const delivery = (): NewDelivery => newDelivery({ urlSource: 'job', firstAttemptAt: T });

  beforeEach(() => {
    jest.useFakeTimers({ now: T });
    inserts = [];
    stored = [];
    slots = new AttemptSlots(4, 50); // two slots for new deliveries
    writer = new NewDeliveryWriter(
      {
        insert: async (deliveries, claim) => {
          inserts.push({ ids: deliveries.map((d) => d.id), claimCount: claim?.count ?? 0 });
          const claimed = deliveries.slice(0, claim?.count ?? 0).map((d) => ({ deliveryId: d.id }) as ClaimedAttempt);
          return { inserted: new Set(deliveries.map((d) => d.id)), claimed };
        },
      },
      slots,
      settings,
      (claimed, unclaimed) => stored.push({ claimed: claimed.map((c) => c.deliveryId), unclaimed: unclaimed.map((d) => d.id) }),
    );
  });
  afterEach(() => jest.useRealTimers());

  it('writes what arrives in one tick in one statement, claimed as far as slots are free for new deliveries', async () => {
    const [a, b] = [delivery(), delivery()];
    const done = Promise.all([writer.submit(a), writer.submit(b)]);
    await jest.advanceTimersByTimeAsync(0);
    expect(await done).toEqual([true, true]);
    expect(inserts).toEqual([{ ids: [a.id, b.id], claimCount: 2 }]);
    expect(stored).toEqual([{ claimed: [a.id, b.id], unclaimed: [] }]);
  });

  it('with no slot free, a delivery waits (not stored) for one, then is written unclaimed after admissionWaitMs', async () => {
    slots.started();
    slots.started(); // every slot for new deliveries taken
    const waiting = delivery();
    let stored1 = false;
    void writer.submit(waiting).then(() => (stored1 = true));
    await jest.advanceTimersByTimeAsync(249);
    expect(inserts).toEqual([]);
    expect(writer.waitingCount).toBe(1);
    expect(stored1).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(inserts).toEqual([{ ids: [waiting.id], claimCount: 0 }]);
    expect(stored).toEqual([{ claimed: [], unclaimed: [waiting.id] }]);
    expect(stored1).toBe(true);
  });

  it('a slot that frees while a delivery waits lets it be written claimed', async () => {
    slots.started();
    slots.started();
    const waiting = delivery();
    const done = writer.submit(waiting);
    await jest.advanceTimersByTimeAsync(100);
    slots.ended();
    writer.flush(); // what the dispatcher does when an attempt ends
    await jest.advanceTimersByTimeAsync(0);
    expect(await done).toBe(true);
    expect(inserts).toEqual([{ ids: [waiting.id], claimCount: 1 }]);
  });

  it('at close, writes everything still waiting, unclaimed', async () => {
    slots.started();
    slots.started();
    const all = [delivery(), delivery(), delivery(), delivery()];
    const done = Promise.all(all.map((d) => writer.submit(d)));
    await writer.close();
    expect(await done).toEqual([true, true, true, true]);
    expect(inserts).toEqual([
      { ids: all.slice(0, 3).map((d) => d.id), claimCount: 0 },
      { ids: [all[3]!.id], claimCount: 0 },
    ]);
  });
});
