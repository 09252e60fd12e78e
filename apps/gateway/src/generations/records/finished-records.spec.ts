import { randomUUID } from 'node:crypto';
import { Broadcasts } from '@gen/contracts';
import { generationRecord } from '@gen/testing';
import { InProcessBroadcaster } from '@gen/transport';
import { FinishedRecords } from './finished-records';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FinishedRecords (the gateway’s finished generations in memory)', () => {
  const account = randomUUID();
  let broadcaster: InProcessBroadcaster;
  let records: FinishedRecords;

  beforeEach(() => {
    broadcaster = new InProcessBroadcaster();
    records = new FinishedRecords(broadcaster, { finishedRecordsMaxEntries: 3 });
    records.onApplicationBootstrap();
  });
  afterEach(() => records.onApplicationShutdown());

  it('keeps a final record from the broadcast, for its own account only', async () => {
    const record = generationRecord();
    broadcaster.publish(Broadcasts.generationChanged, { accountId: account, record });
    await tick();
    expect(records.get(account, record.id)).toEqual(record);
    expect(records.get(randomUUID(), record.id)).toBeUndefined();
  });

  it('never keeps a record still moving', async () => {
    const queued = generationRecord({ status: 'queued' });
    const processing = generationRecord({ status: 'processing' });
    broadcaster.publish(Broadcasts.generationChanged, { accountId: account, record: queued });
    records.remember(account, processing);
    await tick();
    expect(records.get(account, queued.id)).toBeUndefined();
    expect(records.get(account, processing.id)).toBeUndefined();
    const failed = generationRecord({ status: 'failed', error: 'no' });
    records.remember(account, failed);
    expect(records.get(account, failed.id)).toEqual(failed);
  });

  it('holds at most its bound, the oldest going first', () => {
    const kept = [1, 2, 3, 4].map(() => generationRecord());
    for (const record of kept) records.remember(account, record);
    expect(records.size()).toBe(3);
    expect(records.get(account, kept[0].id)).toBeUndefined();
    expect(records.get(account, kept[3].id)).toEqual(kept[3]);
  });

  it('keeps nothing with a bound of 0', () => {
    const none = new FinishedRecords(broadcaster, { finishedRecordsMaxEntries: 0 });
    none.remember(account, generationRecord());
    expect(none.size()).toBe(0);
  });
});
