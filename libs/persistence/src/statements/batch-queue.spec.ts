import { BatchQueue } from './batch-queue';

/** A flush the test finishes by hand: records each batch and waits until told to answer. */
function manualFlush<I, O>(answer: (items: readonly I[]) => O[]) {
  const batches: I[][] = [];
  const gates: (() => void)[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const flush = async (items: readonly I[]): Promise<O[]> => {
    batches.push([...items]);
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise<void>((resolve) => gates.push(resolve));
    inFlight -= 1;
    return answer(items);
  };
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    flush,
    batches,
    get maxInFlight() {
      return maxInFlight;
    },
    /** Lets the oldest waiting batch answer, once it has started. */
    async release() {
      await until(() => gates.length > 0);
      (gates.shift() as () => void)();
    },
  };
}

describe('BatchQueue', () => {
  it('puts items pushed in one turn into one batch, and gives each caller its own result', async () => {
    const flushes: number[][] = [];
    const queue = new BatchQueue<number, string>(async (items) => {
      flushes.push([...items]);
      return items.map((n) => `#${n}`);
    });
    const results = await Promise.all([1, 2, 3].map((n) => queue.push(n)));
    expect(results).toEqual(['#1', '#2', '#3']);
    expect(flushes).toEqual([[1, 2, 3]]);
  });

  it('gathers the next batch while one is in flight, one flush at a time, in push order', async () => {
    const f = manualFlush<number, number>((items) => items.map((n) => n * 10));
    const queue = new BatchQueue(f.flush);
    const first = queue.push(1);
    await f.release(); // batch [1]
    expect(await first).toBe(10);
    const second = queue.push(2);
    await new Promise((resolve) => setImmediate(resolve)); // [2] is now in flight
    const later = [3, 4, 5].map((n) => queue.push(n));
    expect(f.batches).toEqual([[1], [2]]);
    await f.release();
    await f.release();
    expect(await second).toBe(20);
    expect(await Promise.all(later)).toEqual([30, 40, 50]);
    expect(f.batches).toEqual([[1], [2], [3, 4, 5]]);
    expect(f.maxInFlight).toBe(1);
  });

  it('splits what is queued into batches of at most maxBatch', async () => {
    const sizes: number[] = [];
    const queue = new BatchQueue<number, number>(
      async (items) => {
        sizes.push(items.length);
        return [...items];
      },
      { maxBatch: 4 },
    );
    expect(await Promise.all(Array.from({ length: 10 }, (_, i) => queue.push(i)))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sizes).toEqual([4, 4, 2]);
  });

  it('fails every item of a batch whose flush throws, and keeps serving later items', async () => {
    let fail = true;
    const queue = new BatchQueue<number, number>(async (items) => {
      if (fail) throw new Error('database refused');
      return [...items];
    });
    const failed = await Promise.allSettled([1, 2, 3].map((n) => queue.push(n)));
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(failed.map((r) => (r as PromiseRejectedResult).reason.message)).toEqual(['database refused', 'database refused', 'database refused']);
    fail = false;
    expect(await queue.push(4)).toBe(4);
  });

  it('fails the batch when the flush throws synchronously or answers the wrong number of results', async () => {
    const throwing = new BatchQueue<number, number>(() => {
      throw new Error('sync');
    });
    await expect(throwing.push(1)).rejects.toThrow('sync');
    const short = new BatchQueue<number, number>(async (items) => items.slice(1));
    const results = await Promise.allSettled([short.push(1), short.push(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason.message).toBe('BatchQueue: flush returned 1 results for 2 items');
  });

  it('with isolate, runs a failed batch again item by item so only the bad item fails', async () => {
    const flushes: number[][] = [];
    const queue = new BatchQueue<number, number>(
      async (items) => {
        flushes.push([...items]);
        if (items.includes(13)) throw Object.assign(new Error('bad value'), { code: '22003' });
        return items.map((n) => n + 1);
      },
      { isolate: (error) => (error as { code?: string }).code === '22003' },
    );
    const results = await Promise.allSettled([1, 13, 2].map((n) => queue.push(n)));
    expect(results).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: expect.objectContaining({ message: 'bad value' }) },
      { status: 'fulfilled', value: 3 },
    ]);
    expect(flushes).toEqual([[1, 13, 2], [1], [13], [2]]);
  });

  it('does not isolate errors the predicate refuses (or a predicate that throws)', async () => {
    let calls = 0;
    const flush = async (): Promise<number[]> => {
      calls += 1;
      throw new Error('connection refused');
    };
    const refusing = new BatchQueue<number, number>(flush, { isolate: () => false });
    await Promise.allSettled([refusing.push(1), refusing.push(2)]);
    expect(calls).toBe(1);
    const broken = new BatchQueue<number, number>(flush, {
      isolate: () => {
        throw new Error('oops');
      },
    });
    const results = await Promise.allSettled([broken.push(1), broken.push(2)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(2);
  });

  it('drain resolves once every pushed item has its result', async () => {
    const f = manualFlush<number, number>((items) => [...items]);
    const queue = new BatchQueue(f.flush);
    await queue.drain(); // idle: at once
    const settled: number[] = [];
    void queue.push(1).then((n) => settled.push(n));
    void queue.push(2).then((n) => settled.push(n));
    let drained = false;
    const drain = queue.drain().then(() => (drained = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    await f.release();
    await drain;
    expect(settled).toEqual([1, 2]);
  });

  it('refuses a maxBatch that is not a positive integer', () => {
    expect(() => new BatchQueue(async () => [], { maxBatch: 0 })).toThrow(RangeError);
    expect(() => new BatchQueue(async () => [], { maxBatch: 1.5 })).toThrow(RangeError);
  });

  // The webhooks dispatcher's cases (its outcome writer runs several flushes at once).
  describe('with maxConcurrent', () => {
    const tick = () => new Promise((resolve) => setImmediate(resolve));

    it('sends what is pushed in one tick as one batch, and answers each item with its own result', async () => {
      const batches: number[][] = [];
      const q = new BatchQueue<number, string>(
        async (items) => {
          batches.push([...items]);
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
          batches.push([...items]);
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

    it('drain() waits for queued and running batches', async () => {
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
      await q.drain();
      expect(done).toEqual([1, 2]);
    });
    it('runs up to maxConcurrent flushes at once, and the next batch as soon as a slot frees', async () => {
      const f = manualFlush<number, number>((items) => [...items]);
      const q = new BatchQueue(f.flush, { maxBatch: 2, maxConcurrent: 2 });
      const all = [1, 2, 3, 4, 5].map((n) => q.push(n));
      await tick();
      expect(f.batches).toEqual([[1, 2], [3, 4]]);
      expect(q.pending).toBe(1);
      await f.release();
      await f.release();
      await f.release();
      expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5]);
      expect(f.batches).toEqual([[1, 2], [3, 4], [5]]);
      expect(f.maxInFlight).toBe(2);
    });

    it('refuses a maxConcurrent that is not a positive integer', () => {
      expect(() => new BatchQueue(async () => [], { maxConcurrent: 0 })).toThrow(RangeError);
    });
  });
});
