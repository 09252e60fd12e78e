import { batchSlots } from './batch-slots';

describe('batchSlots: the parallel slots an account lends its batches', () => {
  it('keeps the given share free, rounded up to whole slots', () => {
    expect(batchSlots(200, 10)).toBe(180);
    expect(batchSlots(25, 10)).toBe(22);
    expect(batchSlots(500, 5)).toBe(475);
  });

  it('keeps at least one slot once the account has two, and leaves a batch at least one', () => {
    expect(batchSlots(2, 10)).toBe(1);
    expect(batchSlots(3, 10)).toBe(2);
    expect(batchSlots(10, 90)).toBe(1);
  });

  it('lends a one-slot account its slot, and keeps nothing at 0 %', () => {
    expect(batchSlots(1, 10)).toBe(1);
    expect(batchSlots(40, 0)).toBe(40);
  });
});
