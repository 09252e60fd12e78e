import { randomUUID } from 'node:crypto';
import { Events, GenerationFinishedEvent } from '@gen/contracts';
import type { JobEntity } from './job.entity';
import type { OutboxMessage } from '../outbox/outbox.repository';
import { toGenerationRecord } from './job-record';

/** The generation.completed / generation.failed event of a finished job, as stored in the outbox. */
export function finishedEvent(job: JobEntity, cdnBaseUrl: string): OutboxMessage {
  const pattern = job.status === 'completed' ? Events.generationCompleted : Events.generationFailed;
  const id = randomUUID();
  const payload: GenerationFinishedEvent = {
    eventId: id,
    event: pattern,
    accountId: job.accountId,
    apiKeyId: job.apiKeyId,
    webhookUrl: job.webhookUrl,
    record: toGenerationRecord(job, cdnBaseUrl),
  };
  return { id, pattern, payload };
}
