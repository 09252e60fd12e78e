import { LanedBatchQueue } from './laned-batch-queue';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('LanedBatchQueue', () => {
  it('answers an interactive item while a background flush is still under way, and never mixes the lanes in one flush', async () => {
    const flushes: string[][] = [];
    let releaseBackground!: () => void;
    const backgroundGate = new Promise<void>((resolve) => (releaseBackground = resolve));
    const queue = new LanedBatchQueue<string, string>(async (items) => {
      flushes.push([...items]);
      if (items[0].startsWith('batch')) await backgroundGate;
      return items.map((item) => `${item} written`);
    });

    const background = ['batch-1', 'batch-2', 'batch-3'].map((item) => queue.push(item, 'background'));
    await turn();
    expect(flushes).toEqual([['batch-1', 'batch-2', 'batch-3']]);
    // The background flush has not answered; more background items wait for it, an interactive one does not.
    const later = queue.push('batch-4', 'background');
    await expect(queue.push('submit-1')).resolves.toBe('submit-1 written');
    expect(queue.pending).toBe(1);
    expect(flushes).toEqual([['batch-1', 'batch-2', 'batch-3'], ['submit-1']]);

    releaseBackground();
    await expect(Promise.all(background)).resolves.toEqual(['batch-1 written', 'batch-2 written', 'batch-3 written']);
    await expect(later).resolves.toBe('batch-4 written');
    expect(flushes[2]).toEqual(['batch-4']);
  });

  it('keeps group commit within each lane, and drains both', async () => {
    const flushes: Array<{ lane: string; items: number[] }> = [];
    const queue = new LanedBatchQueue<number, number>(async (items) => {
      flushes.push({ lane: items[0] >= 100 ? 'background' : 'interactive', items: [...items] });
      return items.map((n) => n * 2);
    }, { maxBatch: 2 });
    const results = [queue.push(1), queue.push(100, 'background'), queue.push(2), queue.push(101, 'background'), queue.push(102, 'background')];
    await queue.drain();
    await expect(Promise.all(results)).resolves.toEqual([2, 200, 4, 202, 204]);
    expect(flushes).toEqual([
      { lane: 'interactive', items: [1, 2] },
      { lane: 'background', items: [100, 101] },
      { lane: 'background', items: [102] },
    ]);
    expect(queue.pending).toBe(0);
  });
});
