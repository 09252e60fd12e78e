import { randomUUID } from 'node:crypto';
import { newDeliveryId } from '@gen/webhook-signature';
import type { NewDelivery } from '../deliveries/delivery-attempt';

// Test data for the webhooks service's specs (a `test/` folder: left out of the build, linted as test code).

/**
 * A new delivery of a generation's completed event, its first attempt due now; override what a spec
 * is about. Each has its own body (it names its job), so a spec can tell stored bodies apart.
 */
export function newDelivery(overrides: Partial<NewDelivery> = {}): NewDelivery {
  const jobId = overrides.jobId === undefined ? randomUUID() : overrides.jobId;
  return {
    id: newDeliveryId(),
    eventId: randomUUID(),
    redeliveryOf: null,
    jobId,
    accountId: randomUUID(),
    apiKeyId: randomUUID(),
    event: 'generation.completed',
    url: 'https://hooks.example.com/x',
    urlSource: 'key',
    body: Buffer.from(JSON.stringify({ event: 'generation.completed', id: jobId ?? randomUUID() })),
    firstAttemptAt: Date.now(),
    ...overrides,
  };
}
