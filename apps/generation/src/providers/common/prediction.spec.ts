import { predictionProgress } from './prediction';

describe('predictionProgress (a running prediction\'s progress from its logs)', () => {
  it('reads the last tqdm bar of the logs', () => {
    const logs = 'Using seed: 42\n  0%|          | 0/4 [00:00<?, ?it/s]\n 25%|██▌       | 1/4 [00:00<00:02,  1.2it/s]\n 75%|███████▌  | 3/4 [00:02<00:00,  1.4it/s]\n';
    expect(predictionProgress({ status: 'processing', logs })).toBe(0.75);
  });

  it('says nothing where the logs show no bar, or none at all', () => {
    expect(predictionProgress({ status: 'processing', logs: 'Loading weights...\nGenerating 50 percent' })).toBeUndefined();
    expect(predictionProgress({ status: 'starting', logs: '' })).toBeUndefined();
    expect(predictionProgress({ status: 'starting' })).toBeUndefined();
    expect(predictionProgress({ status: 'processing', logs: 42 })).toBeUndefined();
  });

  it('ignores what is not a percentage (over 100) and looks only at the end of long logs', () => {
    expect(predictionProgress({ status: 'processing', logs: '250%|###| odd' })).toBeUndefined();
    const long = ` 10%|#         | 1/10\n${'x'.repeat(5_000)}\n 60%|######    | 6/10\n`;
    expect(predictionProgress({ status: 'processing', logs: long })).toBe(0.6);
  });
});
