import type { EngineOutput, UpstreamPending } from '../../ports/engine';
import { MAX_JSON_BYTES, UpstreamJob } from '../common/upstream-client';
import { CancelCall, SubmitAndPollEngine } from '../common/upstream-engine';
import { UpstreamFailure } from '../common/upstream-failure';
import { jsonObject } from '../common/upstream-http';
import { readUpstreamId } from '../common/upstream-ref';
import type { RemoteEngineSettings } from './remote-engine.settings';

const PENDING = new Set(['queued', 'pending', 'starting', 'processing', 'running', 'in_progress']);
const SUCCEEDED = new Set(['succeeded', 'completed', 'success']);
const FAILED = new Set(['failed', 'error', 'canceled', 'cancelled']);

type UpstreamState = ({ phase: 'pending' } & UpstreamPending) | { phase: 'succeeded'; outputUrls: string[] } | { phase: 'failed'; reason: string };

/**
 * Our own generic protocol (docs/operations/providers.md, "remote"), for upstreams that are none of the providers
 * below: submit, poll until the upstream job ends, fetch the output into our storage.
 *
 * The job id goes upstream as `Idempotency-Key`, so the submit may be retried after any transient
 * failure (the upstream deduplicates it); the upstream's id is also stored on our job, so a job taken
 * over after a crash polls it without submitting at all.
 */
export class RemoteEngine extends SubmitAndPollEngine<RemoteEngineSettings, string, UpstreamState> {
  protected readonly kind = 'remote';

  protected override credentialName(): string | null {
    return this.settings.auth?.valueEnv ?? null;
  }

  protected storeRef(id: string): string {
    return id;
  }

  protected loadRef(stored: string): string {
    return stored;
  }

  protected submit(job: UpstreamJob): Promise<{ ref: string; state: UpstreamState }> {
    // Idempotency-Key: the upstream deduplicates, so even a submit that may have started is repeatable.
    return job.retrying(true, () => this.submitJob(job));
  }

  protected poll(id: string, job: UpstreamJob): Promise<UpstreamState> {
    return job.retrying(true, () => this.status(id, job));
  }

  protected isPending(state: UpstreamState): boolean {
    return state.phase === 'pending';
  }

  /** The optional `progress` (0 to 1) and `queue_position` of a pending status answer. */
  protected override pendingDetail(state: UpstreamState): UpstreamPending {
    return state.phase === 'pending' ? { progress: state.progress, queuePosition: state.queuePosition } : {};
  }

  protected finish(id: string, state: UpstreamState, job: UpstreamJob): Promise<EngineOutput[]> {
    if (state.phase === 'pending') throw new Error(`upstream job ${id} finished while pending`); // the flow finishes ended jobs only
    if (state.phase === 'failed') throw new UpstreamFailure('generation_failed', `upstream job ${id} ended: ${state.reason}`);
    return job.fetchOutputs(state.outputUrls);
  }

  protected cancelCall(id: string): CancelCall | null {
    if (!this.settings.cancelPath) return null;
    return {
      call: { method: 'POST', url: this.client.apiUrl(this.settings.cancelPath.replace('{id}', encodeURIComponent(id))), headers: this.client.apiHeaders() },
      what: 'cancel',
    };
  }

  private async submitJob(job: UpstreamJob): Promise<{ ref: string; state: UpstreamState }> {
    const { request } = job;
    const answer = await this.client.http.send(
      {
        method: 'POST',
        url: this.client.apiUrl(this.settings.submitPath),
        headers: this.client.apiHeaders('application/json', { 'content-type': 'application/json', 'idempotency-key': request.jobId }),
        body: JSON.stringify({
          model: this.settings.upstreamModel ?? request.modelId,
          type: request.type,
          prompt: request.prompt,
          seed: request.seed,
          params: this.settings.params,
          input: request.input,
        }),
        maxBytes: MAX_JSON_BYTES,
        tooLarge: 'malformed',
      },
      job.signal,
    );
    const body = jsonObject(answer, 'submit');
    const id = readUpstreamId(body.id, 'submit answer');
    return { ref: id, state: body.status === undefined ? { phase: 'pending' } : readState(body, 'submit') };
  }

  private async status(id: string, job: UpstreamJob): Promise<UpstreamState> {
    const answer = await this.client.http.send(
      {
        method: 'GET',
        url: this.client.apiUrl(this.settings.statusPath.replace('{id}', encodeURIComponent(id))),
        headers: this.client.apiHeaders(),
        maxBytes: MAX_JSON_BYTES,
        tooLarge: 'malformed',
      },
      job.signal,
    );
    return readState(jsonObject(answer, 'status'), 'status');
  }
}

function readState(body: Record<string, unknown>, call: string): UpstreamState {
  const status = typeof body.status === 'string' ? body.status.toLowerCase() : '';
  if (PENDING.has(status)) {
    const progress = typeof body.progress === 'number' && body.progress >= 0 && body.progress <= 1 ? body.progress : undefined;
    const position = Number.isInteger(body.queue_position) && (body.queue_position as number) >= 0 ? (body.queue_position as number) : undefined;
    return { phase: 'pending', progress, queuePosition: position };
  }
  if (FAILED.has(status)) return { phase: 'failed', reason: typeof body.error === 'string' ? body.error.slice(0, 300) : status };
  if (SUCCEEDED.has(status)) {
    const output = body.output_urls ?? body.output_url ?? body.output;
    const urls = (Array.isArray(output) ? output : [output]).filter((url): url is string => typeof url === 'string' && url !== '');
    if (urls.length === 0) throw new UpstreamFailure('malformed', `${call}: "${status}" without an output URL`);
    return { phase: 'succeeded', outputUrls: urls };
  }
  throw new UpstreamFailure('malformed', `${call}: unknown status ${JSON.stringify(body.status)?.slice(0, 40)}`);
}
