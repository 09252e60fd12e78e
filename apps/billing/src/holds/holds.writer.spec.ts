import type { HoldsRepository, ReserveItem, ReserveOutcome } from './holds.repository';
import { HoldsWriter } from './holds.writer';

describe('HoldsWriter: lanes', () => {
  it("never makes a submit's hold wait behind a batch's holds being written", async () => {
    const flushes: string[][] = [];
    let releaseBatchLines!: () => void;
    const batchLinesWritten = new Promise<void>((resolve) => (releaseBatchLines = resolve));
    const repository = {
      reserveBatch: async (items: readonly ReserveItem[]): Promise<ReserveOutcome[]> => {
        flushes.push(items.map((item) => item.jobId));
        if (items[0].jobId.startsWith('line')) await batchLinesWritten;
        return items.map(() => ({ kind: 'reserved' }) as ReserveOutcome);
      },
    } as unknown as HoldsRepository;
    const writer = new HoldsWriter(repository);

    const lines = ['line-1', 'line-2'].map((jobId) => writer.reserve('acct', jobId, 10, 10, 'model', 'key', 'background'));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(writer.reserve('acct', 'submit-1', 10, 10, 'model', 'key')).resolves.toEqual({ kind: 'reserved' });
    expect(flushes).toEqual([['line-1', 'line-2'], ['submit-1']]);
    releaseBatchLines();
    await expect(Promise.all(lines)).resolves.toHaveLength(2);
  });
});
