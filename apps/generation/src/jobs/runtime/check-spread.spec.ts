import { spreadCheckDelay } from './check-spread';

describe('spreadCheckDelay', () => {
  it('spreads a delay by up to the percent either way, evenly', () => {
    expect(spreadCheckDelay(1000, 20, 0, () => 0)).toBe(800);
    expect(spreadCheckDelay(1000, 20, 0, () => 0.5)).toBe(1000);
    expect(spreadCheckDelay(1000, 20, 0, () => 0.999_999)).toBe(1200);
    const delays = Array.from({ length: 2000 }, () => spreadCheckDelay(1000, 20));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(800);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1200);
    // Jobs parked together end up in different rounds: about a quarter of them in each 100 ms of the spread.
    const inFirstTenth = delays.filter((d) => d < 900).length;
    expect(inFirstTenth).toBeGreaterThan(350);
    expect(inFirstTenth).toBeLessThan(650);
  });

  it('never goes under the floor (a Retry-After), and leaves "now" and a 0 % spread alone', () => {
    expect(spreadCheckDelay(1000, 20, 1000, () => 0)).toBe(1000);
    expect(spreadCheckDelay(1000, 20, 1000, () => 0.999_999)).toBe(1200);
    expect(spreadCheckDelay(0, 20)).toBe(0);
    expect(spreadCheckDelay(1000, 0, 0, () => 0)).toBe(1000);
  });
});
