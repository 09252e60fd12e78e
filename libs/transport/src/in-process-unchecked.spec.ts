import { Broadcasts } from '@gen/contracts';
import { InProcessBroadcaster } from './broadcaster';
import { MessageRefusals } from './payload-check';

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Standalone's bus checks nothing its own code sends (InProcessBus `checkPayloads: false`); the default checks. */
describe('in-process broadcasts with and without the payload check', () => {
  const malformed = { accountId: 7, record: { id: 'x' } };

  it.each([
    [true, 0, 1],
    [false, 1, 0],
  ])('checkPayloads %s: %i delivered, %i refused', async (checkPayloads, delivered, refused) => {
    const refusals = new MessageRefusals();
    const broadcaster = new InProcessBroadcaster(refusals, checkPayloads);
    const got: unknown[] = [];
    broadcaster.subscribe(Broadcasts.generationChanged, (payload) => got.push(payload));
    broadcaster.publish(Broadcasts.generationChanged, malformed);
    await tick();
    expect(got).toHaveLength(delivered);
    expect((await refusals.counter.get()).values.reduce((sum, v) => sum + v.value, 0)).toBe(refused);
  });
});
