import { randomUUID } from 'node:crypto';
import { validateShape } from '../validation';
import { Broadcast, BROADCAST_PAYLOADS, PAYLOAD_CLASSES, Subject } from './payload-classes';
import { Broadcasts, EventName, Events, Subjects } from './subjects';

const id = () => randomUUID();
const record = () => ({
  id: id(),
  status: 'completed',
  type: 'TEXT_TO_IMAGE',
  model: 'pixel-flux-1',
  prompt: 'a lighthouse at dusk',
  output_url: 'https://cdn.example.com/o/1.png',
  credits_charged: 4,
  error: null,
  created_at: '2025-01-02T03:04:05.000Z',
  started_at: '2025-01-02T03:04:05.100Z',
  completed_at: '2025-01-02T03:04:06.000Z',
  canceled_at: null,
  queue_position: null,
  progress: 1,
  output_expires_at: null,
  input: {},
  metadata: {},
  outputs: [],
});

/** A payload each subject's sender sends (one per subject and event: a missing one does not compile). */
const WELL_FORMED: Record<Subject | EventName, object> = {
  [Subjects.billingReserve]: { accountId: id(), jobId: id(), modelId: 'pixel-flux-1', amount: 4, minimum: 4, apiKeyId: id() },
  [Subjects.generationBatchCreate]: {
    batchId: id(),
    accountId: id(),
    apiKeyId: id(),
    plan: 'pro',
    parallelLimit: 5,
    completionWindow: '24h',
    completionWindowSeconds: 86_400,
    webhookUrl: null,
    metadata: { run: 'nightly' },
    totalLines: 2,
    catalogueVersion: 'c1',
  },
  [Subjects.generationBatchLines]: {
    batchId: id(),
    accountId: id(),
    lines: [{ line: 1, customId: 'shot-1', model: 'pixel-flux-1', prompt: 'a red shoe', type: 'TEXT_TO_IMAGE', input: { num_outputs: 1 }, metadata: {}, credits: 3, minimumCredits: 3, webhookUrl: null }],
    invalid: [{ line: 2, customId: null, code: 'validation_error', message: 'line 2 is not JSON' }],
  },
  [Subjects.generationBatchSeal]: { batchId: id(), accountId: id() },
  [Subjects.generationBatchGet]: { batchId: id(), accountId: id() },
  [Subjects.generationBatchList]: { accountId: id(), limit: 20 },
  [Subjects.generationBatchCancel]: { batchId: id(), accountId: id() },
  [Subjects.generationBatchResults]: { batchId: id(), accountId: id(), file: 'errors', afterLine: 0, limit: 1000 },
  [Subjects.billingRelease]: { accountId: id(), jobId: id(), reason: 'submit failed' },
  [Subjects.billingBalance]: { accountId: id() },
  [Subjects.billingAccountOpen]: { accountId: id(), plan: 'pro', initialCredits: 1000 },
  [Subjects.billingLedger]: { accountId: id(), limit: 20 },
  [Subjects.billingUsage]: { accountId: id(), days: 30 },
  [Subjects.billingKeyCapsList]: { accountId: id(), keyIds: [id(), id()] },
  [Subjects.billingKeyCapsSet]: { accountId: id(), keyId: id(), perDay: 500, perMonth: null },
  [Subjects.billingLowBalanceGet]: { accountId: id() },
  [Subjects.billingLowBalanceSet]: { accountId: id(), threshold: null },
  [Subjects.billingStripeEvent]: { event: { id: 'evt_1', object: 'event', type: 'checkout.session.completed', created: 1764000000, data: { object: { id: 'cs_1' } } } },
  [Subjects.billingPaymentsOverview]: { accountId: id() },
  [Subjects.billingPaymentsCheckout]: { accountId: id(), packId: 'starter', successUrl: 'https://gen.example/dashboard/billing', cancelUrl: 'https://gen.example/dashboard/billing', email: 'o@gen.example' },
  [Subjects.billingPaymentsPortal]: { accountId: id(), returnUrl: 'https://gen.example/dashboard/billing' },
  [Subjects.billingPaymentsPurchases]: { accountId: id(), limit: 20 },
  [Subjects.billingPaymentsTopUpGet]: { accountId: id() },
  [Subjects.billingPaymentsInvoices]: { accountId: id(), limit: 20 },
  [Subjects.billingPaymentsTopUpSet]: { accountId: id(), packId: 'starter', threshold: 300 },
  [Subjects.billingPaymentsSubscribe]: { accountId: id(), plan: 'pro', successUrl: 'https://gen.example/dashboard/billing', cancelUrl: 'https://gen.example/dashboard/billing', email: 'o@gen.example' },
  [Subjects.generationSubmit]: {
    jobId: id(),
    accountId: id(),
    apiKeyId: id(),
    model: 'pixel-flux-1',
    prompt: 'a lighthouse',
    type: 'TEXT_TO_IMAGE',
    webhookUrl: null,
    plan: 'pro',
    credits: 4,
    parallelLimit: 4,
    waitMs: 0,
    cancelAfterSeconds: null,
    input: { num_outputs: 2 },
    metadata: { order: '42' },
    catalogueVersion: 'v1',
  },
  [Subjects.generationGet]: { accountId: id(), jobId: id() },
  [Subjects.generationList]: { accountId: id(), limit: 20, status: 'queued', type: 'TEXT_TO_3D' },
  [Subjects.generationCancel]: { accountId: id(), jobId: id() },
  [Subjects.generationOutputStatus]: { outputKey: 'outputs/abc.png' },
  [Subjects.generationProviderCallback]: { provider: 'replicate', token: 'a'.repeat(64), headers: { 'webhook-id': 'msg_1' }, body: 'e30=' },
  [Subjects.modelsList]: {},
  [Subjects.modelsGet]: { modelId: 'pixel-flux-1' },
  [Subjects.authWebhookSecretGet]: { apiKeyId: id() },
  [Subjects.authAccountWebhooksGet]: { accountId: id() },
  [Subjects.webhooksDeliveriesList]: { accountId: id(), jobId: id() },
  [Subjects.webhooksRedeliver]: { accountId: id(), jobId: id() },
  [Subjects.webhooksTestSend]: { accountId: id(), apiKeyId: id(), url: 'https://hooks.example.com/a' },
  [Subjects.webhooksTestList]: { accountId: id(), apiKeyId: id(), limit: 10 },
  [Subjects.webhooksAccountEventsList]: { accountId: id(), limit: 5 },
  [Events.generationCompleted]: { eventId: id(), event: 'generation.completed', accountId: id(), apiKeyId: id(), webhookUrl: null, record: record() },
  [Events.generationFailed]: { eventId: id(), event: 'generation.failed', accountId: id(), apiKeyId: id(), webhookUrl: 'https://h.example.com', record: record() },
  [Events.accountLowBalance]: {
    eventId: id(),
    event: 'account.low_balance',
    accountId: id(),
    threshold: 500,
    available: 499,
    crossedAt: '2025-01-02T03:04:05.000Z',
  },
  [Events.accountBillingNotice]: {
    eventId: id(),
    event: 'account.billing_notice',
    accountId: id(),
    kind: 'payment_disputed',
    subject: 'A payment was disputed',
    message: 'The card holder disputed a payment.',
    details: { dispute: 'dp_1', charge: 'ch_1' },
  },
  [Events.batchCompleted]: {
    eventId: id(),
    event: 'batch.completed',
    accountId: id(),
    apiKeyId: id(),
    webhookUrl: 'https://hooks.example.com/batches',
    batch: {
      id: id(),
      object: 'batch',
      status: 'completed',
      completion_window: '24h',
      created_at: '2025-01-02T03:04:05.000Z',
      expires_at: '2025-01-03T03:04:05.000Z',
      finished_at: '2025-01-02T04:04:05.000Z',
      canceled_at: null,
      request_counts: { total: 2, invalid: 0, waiting: 0, queued: 0, processing: 0, completed: 1, failed: 1, canceled: 0, expired: 0 },
      credits_charged: 3,
      webhook_url: 'https://hooks.example.com/batches',
      metadata: {},
    },
  },
};

/** `payload` as a newer sender might send it: a field added at the top, and inside its record if it has one. */
function withAddedFields(payload: object): object {
  const added: Record<string, unknown> = { ...payload, addedLater: 'x' };
  if (typeof added.record === 'object' && added.record !== null) added.record = { ...added.record, addedLater: 'x' };
  return added;
}

/** One malformed payload per subject: a field of the wrong type, or a required one missing. */
const MALFORMED: Record<Subject | EventName, object> = {
  ...(Object.fromEntries(Object.entries(WELL_FORMED).map(([subject, payload]) => [subject, { ...payload, accountId: 42 }])) as Record<Subject | EventName, object>),
  [Subjects.generationOutputStatus]: { outputKey: ['a'] },
  [Subjects.generationProviderCallback]: { provider: 'replicate', token: 'a'.repeat(64), headers: { 'x-other': 'b' }, body: 'e30=' },
  [Subjects.modelsList]: { plan: 'gold' },
  [Subjects.modelsGet]: {},
  [Subjects.authWebhookSecretGet]: { apiKeyId: null },
  [Subjects.billingStripeEvent]: { event: 'evt_1' },
  [Events.generationCompleted]: { ...WELL_FORMED[Events.generationCompleted], record: { ...record(), status: 'done' } },
};

const subjects = [...Object.values(Subjects), ...Object.values(Events)];

describe('PAYLOAD_CLASSES', () => {
  it('has a class for every request subject and every event, and nothing else', () => {
    expect(Object.keys(PAYLOAD_CLASSES).sort()).toEqual([...new Set(subjects)].sort());
    expect(Object.keys(BROADCAST_PAYLOADS).sort()).toEqual(Object.values(Broadcasts).sort());
  });

  it.each(subjects)('%s: takes what its sender sends', (subject) => {
    expect(validateShape(PAYLOAD_CLASSES[subject], WELL_FORMED[subject])).toMatchObject({ ok: true });
  });

  it.each(subjects)('%s: refuses a malformed payload, naming the field', (subject) => {
    const result = validateShape(PAYLOAD_CLASSES[subject], MALFORMED[subject]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems.length).toBeGreaterThan(0);
  });

  it.each(subjects)('%s: refuses what is not an object', (subject) => {
    expect(validateShape(PAYLOAD_CLASSES[subject], 'hello')).toMatchObject({ ok: false });
    expect(validateShape(PAYLOAD_CLASSES[subject], null)).toMatchObject({ ok: false });
  });

  // Tolerant readers (CONTRIBUTING.md, "Messages"): a field a newer sender adds, at the top or inside
  // the record, must not make this receiver refuse the message.
  it.each(subjects)('%s: takes a payload with fields it does not know, at the top and nested, and keeps them', (subject) => {
    const result = validateShape(PAYLOAD_CLASSES[subject], withAddedFields(WELL_FORMED[subject]));
    expect(result).toMatchObject({ ok: true, value: { addedLater: 'x' } });
    if (result.ok && 'record' in result.value) expect(result.value.record).toMatchObject({ addedLater: 'x' });
  });

  it('keeps fields a newer sender adds (an older receiver ignores them)', () => {
    const payload = { ...WELL_FORMED[Subjects.generationGet], addedLater: true };
    expect(validateShape(PAYLOAD_CLASSES[Subjects.generationGet], payload)).toMatchObject({ ok: true });
  });

  it('names the nested field of an event that is wrong', () => {
    const result = validateShape(PAYLOAD_CLASSES[Events.generationFailed], { ...WELL_FORMED[Events.generationFailed], record: { ...record(), credits_charged: '4' } });
    expect(result).toEqual({ ok: false, problems: ['record.credits_charged must be a number conforming to the specified constraints'] });
  });
});

describe('BROADCAST_PAYLOADS', () => {
  const wellFormed: Record<Broadcast, object> = {
    [Broadcasts.generationChanged]: { accountId: id(), record: record() },
    [Broadcasts.apiKeyChanged]: { apiKeyId: id(), lookupId: 'abc' },
    [Broadcasts.accountChanged]: { accountId: id() },
    [Broadcasts.catalogueChanged]: {},
  };

  it.each(Object.values(Broadcasts))('%s: takes a broadcast with fields it does not know', (topic) => {
    const { payload } = BROADCAST_PAYLOADS[topic];
    if (!payload) return expect(topic).toBe(Broadcasts.catalogueChanged); // carries nothing
    expect(validateShape(payload, withAddedFields(wellFormed[topic]))).toMatchObject({ ok: true, value: { addedLater: 'x' } });
  });

  it.each(Object.values(Broadcasts))('%s: takes what its publisher sends, refuses a field of the wrong type', (topic) => {
    const { payload } = BROADCAST_PAYLOADS[topic];
    if (!payload) return expect(topic).toBe(Broadcasts.catalogueChanged); // carries nothing
    expect(validateShape(payload, wellFormed[topic])).toMatchObject({ ok: true });
    const [first] = Object.keys(wellFormed[topic]);
    expect(validateShape(payload, { ...wellFormed[topic], [first]: 7 })).toMatchObject({ ok: false });
  });

  it('drops a malformed live status, passes malformed invalidations on (their subscribers then forget everything)', () => {
    expect(BROADCAST_PAYLOADS[Broadcasts.generationChanged].malformed).toBe('drop');
    expect(BROADCAST_PAYLOADS[Broadcasts.apiKeyChanged].malformed).toBe('deliver');
    expect(BROADCAST_PAYLOADS[Broadcasts.accountChanged].malformed).toBe('deliver');
  });
});
