import type { GenerationRecord } from '@gen/contracts';
import type { JobEntity } from './job.entity';

function iso(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** The wire form of a job: the spec's Generation fields plus prompt and started_at. */
export function toGenerationRecord(job: JobEntity, cdnBaseUrl: string): GenerationRecord {
  return {
    id: job.id,
    status: job.status,
    type: job.type,
    model: job.modelId,
    prompt: job.prompt,
    output_url: job.status === 'completed' && job.outputKey ? `${cdnBaseUrl}/${job.outputKey}` : null,
    credits_charged: job.status === 'completed' ? job.credits : 0,
    error: job.status === 'failed' ? job.error : null,
    created_at: iso(job.createdAt) as string,
    started_at: iso(job.startedAt),
    completed_at: iso(job.completedAt),
  };
}
