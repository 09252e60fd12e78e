import type { JobEntity } from './job.entity';
import type { JobReadsRepository } from './job-reads.repository';
import { SyncWaits } from './sync-waits';

describe('SyncWaits: a synchronous submit waits for its job', () => {
  /** The row as the database holds it now (what another replica wrote). */
  let row: JobEntity | null;
  const waits = () => new SyncWaits({ findById: () => Promise.resolve(row) } as unknown as JobReadsRepository);
  const job = (status: JobEntity['status']) => ({ id: 'j1', status }) as JobEntity;

  beforeEach(() => (row = job('processing')));

  it('is answered at once when a run of this process finishes the job', async () => {
    const w = waits();
    const waited = w.wait('j1', 10_000, true);
    const done = job('completed');
    w.wake(done);
    await expect(waited).resolves.toBe(done);
  });

  it('finds the job final in its row when another replica finished it', async () => {
    const waited = waits().wait('j1', 10_000, false);
    row = job('failed');
    await expect(waited).resolves.toBe(row);
  });

  it('answers null when the job is not final by the deadline', async () => {
    await expect(waits().wait('j1', 50, true)).resolves.toBeNull();
  });

  it('answers at shutdown with the job as it stands: final, or null', async () => {
    const w = waits();
    const waited = w.wait('j1', 10_000, true);
    w.drain();
    await expect(waited).resolves.toBeNull();
    row = job('completed');
    await expect(w.wait('j1', 10_000, true)).resolves.toBe(row);
  });

  it('says whether a synchronous submit waits for the job now (its finish then goes in the interactive lane)', async () => {
    const w = waits();
    expect(w.isAwaited('j1')).toBe(false);
    const waited = w.wait('j1', 10_000, true);
    expect(w.isAwaited('j1')).toBe(true);
    expect(w.isAwaited('j2')).toBe(false);
    w.wake(job('completed'));
    await waited;
    expect(w.isAwaited('j1')).toBe(false);
  });
});
