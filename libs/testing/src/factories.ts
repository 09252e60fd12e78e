import { randomUUID } from 'node:crypto';
import type { GenerationFinishedEvent, GenerationRecord } from '@gen/contracts';

/** A completed generation record as the API and events carry it; override what a test is about. */
export function generationRecord(overrides: Partial<GenerationRecord> = {}): GenerationRecord {
  const status = overrides.status ?? 'completed';
  const outputUrl = 'output_url' in overrides ? overrides.output_url : `https://cdn.example.com/o/${randomUUID()}.png`;
  return {
    id: randomUUID(),
    status: 'completed',
    type: 'TEXT_TO_IMAGE',
    model: 'pixel-flux-1',
    prompt: 'a lighthouse at dusk',
    output_url: outputUrl ?? null,
    credits_charged: 4,
    error: null,
    created_at: '2025-01-02T03:04:05.000Z',
    started_at: '2025-01-02T03:04:05.100Z',
    completed_at: '2025-01-02T03:04:06.000Z',
    canceled_at: null,
    queue_position: null,
    progress: 1,
    output_expires_at: '2025-01-09T03:04:06.000Z',
    input: {},
    metadata: {},
    ...overrides,
    // Every completed record lists its output (the first is output_url), unless the test says otherwise.
    outputs: overrides.outputs ?? (status === 'completed' && outputUrl ? [{ url: outputUrl, content_type: 'image/png', bytes: 1024 }] : []),
  };
}

/** A generation's final event as the generation service publishes it (no webhook); override what a test is about. */
export function generationFinishedEvent(overrides: Partial<GenerationFinishedEvent> = {}): GenerationFinishedEvent {
  const record = overrides.record ?? generationRecord();
  return {
    eventId: randomUUID(),
    event: record.status === 'failed' ? 'generation.failed' : 'generation.completed',
    accountId: randomUUID(),
    apiKeyId: randomUUID(),
    webhookUrl: null,
    record,
    ...overrides,
  };
}
