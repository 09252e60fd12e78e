import type { GenerationOutput, GenerationRecord } from '@gen/contracts';
import type { JobEntity, JobOutput } from './job.entity';

function iso(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/**
 * The wire form of a job: the spec's Generation fields plus prompt, started_at and the job-control
 * fields. `queuePosition` is the caller's count of jobs ahead while it is queued (a query); while
 * processing, `queue_position` is the provider's queue position a parked job's last check read.
 * An expired output keeps its URL, which then answers 410 (docs/guide/generations.md, "Retention").
 */
export function toGenerationRecord(job: JobEntity, cdnBaseUrl: string, queuePosition: number | null = null): GenerationRecord {
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
    canceled_at: iso(job.canceledAt),
    // Processing: the place in the provider's queue where a parked job's provider says (fal), else null.
    queue_position: job.status === 'queued' ? queuePosition : job.status === 'processing' ? (job.upstreamQueuePosition ?? null) : null,
    progress: job.status === 'completed' ? 1 : job.status === 'processing' ? job.progress : null,
    output_expires_at: job.status === 'completed' ? iso(job.outputExpiresAt) : null,
    input: job.input ?? {},
    metadata: job.metadata ?? {},
    outputs: job.status === 'completed' ? (job.outputs ?? []).map((output) => toOutput(output, cdnBaseUrl)) : [],
  };
}

function toOutput(output: JobOutput, cdnBaseUrl: string): GenerationOutput {
  return {
    url: `${cdnBaseUrl}/${output.key}`,
    content_type: output.content_type,
    bytes: output.bytes,
    ...(output.width !== undefined && { width: output.width }),
    ...(output.height !== undefined && { height: output.height }),
    ...(output.duration_s !== undefined && { duration_s: output.duration_s }),
  };
}
