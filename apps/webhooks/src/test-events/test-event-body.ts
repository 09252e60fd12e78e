import { Events } from '@gen/contracts';
import { randomBase62, TEST_EVENT_ID_PREFIX } from '@gen/webhook-signature';
import type { WebhookBody } from '../deliveries/webhook-body';

/** The model named in a test event's body: no such model is in the catalogue. */
export const TEST_EVENT_MODEL = 'test-model';
/** The output URL of a test event's body (a documentation domain: there is no file). */
export const TEST_EVENT_OUTPUT_URL = 'https://example.com/generation-service/test-event.png';

/** `test_` + 24 base62 characters: never a generation id (those are UUIDs). */
export function newTestEventId(): string {
  return TEST_EVENT_ID_PREFIX + randomBase62(24);
}

/**
 * A test event's body: exactly the fields and order of a real `generation.completed` body, so a
 * receiver's parsing and verification are exercised as they will be, with a clearly fake `id`
 * (`test_...`), no credits charged, and the time of the test.
 */
export function testEventBody(id: string, now: Date): WebhookBody {
  const at = now.toISOString();
  return {
    event: Events.generationCompleted,
    id,
    status: 'completed',
    type: 'TEXT_TO_IMAGE',
    model: TEST_EVENT_MODEL,
    output_url: TEST_EVENT_OUTPUT_URL,
    credits_charged: 0,
    error: null,
    created_at: at,
    completed_at: at,
    outputs: [{ url: TEST_EVENT_OUTPUT_URL, content_type: 'image/png', bytes: 0 }],
    input: {},
    metadata: {},
  };
}
