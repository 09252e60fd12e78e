import { WEBHOOK_BODY_FIELDS, serialiseWebhookBody } from '../deliveries/webhook-body';
import { newTestEventId, testEventBody } from './test-event-body';

describe('test event body', () => {
  it('has exactly the fields of a generation.completed body, in order, with a test_ id and nothing charged', () => {
    const id = newTestEventId();
    expect(id).toMatch(/^test_[0-9A-Za-z]{24}$/);
    expect(newTestEventId()).not.toBe(id);
    const at = new Date('2026-11-01T10:00:00.000Z');
    const parsed = JSON.parse(serialiseWebhookBody(testEventBody(id, at)).toString('utf8'));
    expect(Object.keys(parsed)).toEqual([...WEBHOOK_BODY_FIELDS]);
    expect(parsed).toEqual({
      event: 'generation.completed',
      id,
      status: 'completed',
      type: 'TEXT_TO_IMAGE',
      model: 'test-model',
      output_url: 'https://example.com/generation-service/test-event.png',
      credits_charged: 0,
      error: null,
      created_at: '2026-11-01T10:00:00.000Z',
      completed_at: '2026-11-01T10:00:00.000Z',
      outputs: [{ url: 'https://example.com/generation-service/test-event.png', content_type: 'image/png', bytes: 0 }],
      input: {},
      metadata: {},
    });
  });
});
