import { QueuedWorkHint } from './queued-work-hint';

describe('QueuedWorkHint', () => {
  it('may have work until a look finds the queue empty', () => {
    const hint = new QueuedWorkHint();
    expect(hint.empty).toBe(false);
    hint.looked(hint.look(), false);
    expect(hint.empty).toBe(true);
  });

  it('a job queued here, or a look that found work, makes it look again', () => {
    const hint = new QueuedWorkHint();
    hint.looked(hint.look(), false);
    hint.queued();
    expect(hint.empty).toBe(false);
    hint.looked(hint.look(), false);
    hint.looked(hint.look(), true);
    expect(hint.empty).toBe(false);
  });

  it('a job queued while a look ran: that look finding nothing does not say empty', () => {
    const hint = new QueuedWorkHint();
    const look = hint.look();
    hint.queued();
    hint.looked(look, false);
    expect(hint.empty).toBe(false);
    hint.looked(hint.look(), false);
    expect(hint.empty).toBe(true);
  });
});
