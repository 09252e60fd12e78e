import type { BatchFinishedEvent, BatchView } from '@gen/contracts';
import { batchCompletedBody, serialiseBatchCompletedBody } from './batch-event-body';

const batch = (overrides: Partial<BatchView> = {}): BatchView => ({
  id: 'batch_4b0f6a5e2d8c',
  object: 'batch',
  status: 'completed',
  completion_window: '24h',
  created_at: '2026-11-26T16:00:00.000Z',
  expires_at: '2026-11-27T16:00:00.000Z',
  finished_at: '2026-11-26T16:30:00.123Z',
  canceled_at: null,
  request_counts: { total: 3, invalid: 1, waiting: 0, queued: 0, processing: 0, completed: 1, failed: 1, canceled: 0, expired: 0 },
  credits_charged: 4,
  webhook_url: 'https://hooks.example.com/batches',
  metadata: { run: 'nightly' },
  ...overrides,
});

const event = (b: BatchView): BatchFinishedEvent => ({
  eventId: '9d3e1c2a-7b4f-4e6a-8c5d-1f2a3b4c5d6e',
  event: 'batch.completed',
  accountId: '0b7f2a3e-58c4-4f1e-9c55-3f4b7f1d2a10',
  apiKeyId: '1c8f2a3e-58c4-4f1e-9c55-3f4b7f1d2a11',
  webhookUrl: b.webhook_url,
  batch: b,
});

describe('batch.completed body', () => {
  it('is the envelope (event, id, account_id, created_at) with the batch as the API shows it', () => {
    const body = batchCompletedBody(event(batch()));
    expect(Object.keys(body)).toEqual(['event', 'id', 'account_id', 'created_at', 'batch']);
    expect(body).toEqual({
      event: 'batch.completed',
      id: '9d3e1c2a-7b4f-4e6a-8c5d-1f2a3b4c5d6e',
      account_id: '0b7f2a3e-58c4-4f1e-9c55-3f4b7f1d2a10',
      created_at: '2026-11-26T16:30:00.123Z',
      batch: batch(),
    });
  });

  it('serialises to the same bytes whatever order the event carried the batch in', () => {
    const b = batch();
    const reordered = Object.fromEntries(Object.entries({ ...b, request_counts: Object.fromEntries(Object.entries(b.request_counts).reverse()) }).reverse()) as unknown as BatchView;
    const a = serialiseBatchCompletedBody(batchCompletedBody(event(b)));
    expect(serialiseBatchCompletedBody(batchCompletedBody(event(reordered))).equals(a)).toBe(true);
    expect(Object.keys(JSON.parse(a.toString('utf8')).batch)).toEqual(Object.keys(b));
  });

  it('an event whose batch carries no finished_at is dated now', () => {
    const now = new Date('2026-11-26T17:00:00.000Z');
    expect(batchCompletedBody(event(batch({ finished_at: null })), now).created_at).toBe(now.toISOString());
  });
});
