import { BatchQueue } from './batch-queue';

describe('BatchQueue', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('sends what is pushed in one tick as one batch, and answers each item with its own result', async () => {
    const batches: number[][] = [];
    const q = new BatchQueue<number, string>(
      async (items) => {
        batches.push(items);
        return items.map((n) => `r${n}`);
      },
      { maxBatch: 100, maxConcurrent: 1 },
    );
    const results = await Promise.all([1, 2, 3].map((n) => q.push(n)));
    expect(results).toEqual(['r1', 'r2', 'r3']);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('groups what arrives while a flush is in flight into the next one, within maxBatch and maxConcurrent', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    let running = 0;
    let maxRunning = 0;
    const q = new BatchQueue<number, number>(
      async (items) => {
        batches.push(items);
        running++;
        maxRunning = Math.max(maxRunning, running);
        if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
        running--;
        return items;
      },
      { maxBatch: 3, maxConcurrent: 1 },
    );
    const first = q.push(0);
    await tick();
    const rest = [1, 2, 3, 4, 5, 6, 7].map((n) => q.push(n));
    await tick();
    expect(q.pending).toBe(7);
    release();
    await Promise.all([first, ...rest]);
    expect(batches).toEqual([[0], [1, 2, 3], [4, 5, 6], [7]]);
    expect(maxRunning).toBe(1);
  });

  it('rejects every item of a failed batch, and goes on with the next', async () => {
    let calls = 0;
    const q = new BatchQueue<number, number>(
      async (items) => {
        if (++calls === 1) throw new Error('database down');
        return items;
      },
      { maxBatch: 10, maxConcurrent: 1 },
    );
    const failed = [q.push(1), q.push(2)];
    await expect(Promise.allSettled(failed)).resolves.toEqual([
      { status: 'rejected', reason: new Error('database down') },
      { status: 'rejected', reason: new Error('database down') },
    ]);
    await expect(q.push(3)).resolves.toBe(3);
  });

  it('idle() waits for queued and running batches', async () => {
    const done: number[] = [];
    const q = new BatchQueue<number, number>(
      async (items) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        done.push(...items);
        return items;
      },
      { maxBatch: 1, maxConcurrent: 1 },
    );
    void q.push(1);
    void q.push(2);
    await q.idle();
    expect(done).toEqual([1, 2]);
  });
});
