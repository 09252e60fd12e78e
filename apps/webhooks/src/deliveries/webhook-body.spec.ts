import { Events, GenerationFinishedEvent, GenerationRecord } from '@gen/contracts';
import { generationFinishedEvent, generationRecord } from '@gen/testing';
import { serialiseWebhookBody, WEBHOOK_BODY_FIELDS, webhookBody } from './webhook-body';

const record = (overrides: Partial<GenerationRecord> = {}): GenerationRecord =>
  generationRecord({
    id: '0b7f2a3e-58c4-4f1e-9c55-3f4b7f1d2a10',
    prompt: 'a secret prompt',
    output_url: 'https://cdn.example/outputs/abc.png',
    ...overrides,
  });

const event = (name: GenerationFinishedEvent['event'], r: GenerationRecord): GenerationFinishedEvent => generationFinishedEvent({ event: name, record: r });

describe('webhook body', () => {
  it("has the spec fields, in order, then the added ones (outputs, input, metadata), and nothing else (no prompt, no started_at)", () => {
    const bytes = serialiseWebhookBody(webhookBody(event(Events.generationCompleted, record())));
    const text = bytes.toString('utf8');
    expect(Object.keys(JSON.parse(text))).toEqual([...WEBHOOK_BODY_FIELDS]);
    expect(WEBHOOK_BODY_FIELDS).toEqual([
      'event', 'id', 'status', 'type', 'model', 'output_url', 'credits_charged', 'error', 'created_at', 'completed_at',
      'outputs', 'input', 'metadata',
    ]);
    expect(text).not.toContain('prompt');
    expect(text).not.toContain('started_at');
  });

  it('a completed event: status completed, output_url set, credits charged, error null', () => {
    const body = webhookBody(event(Events.generationCompleted, record({ error: 'stale' })));
    expect(body).toEqual({
      event: 'generation.completed',
      id: '0b7f2a3e-58c4-4f1e-9c55-3f4b7f1d2a10',
      status: 'completed',
      type: 'TEXT_TO_IMAGE',
      model: 'pixel-flux-1',
      output_url: 'https://cdn.example/outputs/abc.png',
      credits_charged: 4,
      error: null,
      created_at: '2025-01-02T03:04:05.000Z',
      completed_at: '2025-01-02T03:04:06.000Z',
      outputs: [{ url: 'https://cdn.example/outputs/abc.png', content_type: 'image/png', bytes: 1024 }],
      input: {},
      metadata: {},
    });
  });

  it('carries every output, the input as applied and the metadata; a failed event no outputs', () => {
    const outputs = [
      { url: 'https://cdn.example/outputs/a.png', content_type: 'image/png', bytes: 10, width: 64, height: 64 },
      { url: 'https://cdn.example/outputs/b.png', content_type: 'image/png', bytes: 11, width: 64, height: 64 },
    ];
    const r = record({ output_url: outputs[0].url, outputs, input: { num_outputs: 2, seed: 7 }, metadata: { order: 'A-1' } });
    expect(webhookBody(event(Events.generationCompleted, r))).toMatchObject({ output_url: outputs[0].url, outputs, input: { num_outputs: 2, seed: 7 }, metadata: { order: 'A-1' } });
    const failed = webhookBody(event(Events.generationFailed, { ...r, status: 'failed', error: 'x' }));
    expect(failed).toMatchObject({ output_url: null, outputs: [], input: { num_outputs: 2, seed: 7 }, metadata: { order: 'A-1' } });
  });

  it('a failed event: status failed, output_url null, 0 credits, the sanitised error', () => {
    const r = record({ status: 'failed', output_url: 'https://leak', credits_charged: 4, error: 'The model refused.' });
    const body = webhookBody(event(Events.generationFailed, r));
    expect(body).toMatchObject({ event: 'generation.failed', status: 'failed', output_url: null, credits_charged: 0, error: 'The model refused.' });
  });

  it('a failed event never has a null error', () => {
    const body = webhookBody(event(Events.generationFailed, record({ status: 'failed', error: null })));
    expect(typeof body.error).toBe('string');
    expect(body.error!.length).toBeGreaterThan(0);
  });

  it('event equals the status it announces', () => {
    expect(webhookBody(event(Events.generationCompleted, record())).status).toBe('completed');
    expect(webhookBody(event(Events.generationFailed, record({ status: 'failed', error: 'x' }))).status).toBe('failed');
  });

  it('serialises to the same bytes every time, whatever order the record had', () => {
    const reordered = Object.fromEntries(Object.entries(record()).reverse()) as unknown as GenerationRecord;
    const a = serialiseWebhookBody(webhookBody(event(Events.generationCompleted, record())));
    const b = serialiseWebhookBody(webhookBody(event(Events.generationCompleted, reordered)));
    expect(a.equals(b)).toBe(true);
    expect(a.toString()).toBe(JSON.stringify(JSON.parse(a.toString())));
  });

  it('keeps non-ASCII text as UTF-8', () => {
    const bytes = serialiseWebhookBody(webhookBody(event(Events.generationFailed, record({ status: 'failed', error: 'Échec ☕' }))));
    expect(JSON.parse(bytes.toString('utf8')).error).toBe('Échec ☕');
  });
});
