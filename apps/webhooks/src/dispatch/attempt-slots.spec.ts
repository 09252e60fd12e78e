import { AttemptSlots } from './attempt-slots';

describe('AttemptSlots', () => {
  it('keeps a share of the slots for retries', () => {
    const slots = new AttemptSlots(1_024, 90);
    expect(slots.free()).toBe(1_024);
    expect(slots.freeForNew()).toBe(921);
    slots.reserve(900);
    slots.started();
    expect(slots.free()).toBe(123);
    expect(slots.freeForNew()).toBe(20);
    slots.release(900);
    slots.ended();
    expect(slots.freeForNew()).toBe(921);
  });

  it('always lets new deliveries have at least one slot', () => {
    expect(new AttemptSlots(2, 90).freeForNew()).toBe(1);
    expect(new AttemptSlots(1, 1).freeForNew()).toBe(1);
  });

  it('counts attempts running, not the slots reserved for claims', () => {
    const slots = new AttemptSlots(4, 100);
    slots.reserve(2);
    slots.started();
    expect(slots.inFlight).toBe(1);
    expect(slots.free()).toBe(1);
  });
});
