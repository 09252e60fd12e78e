import type { Engine, EngineOutput, EngineRequest } from '../../engines/engine';
import { Credential, MAX_JSON_BYTES, UpstreamClient, UpstreamJob } from '../shared/upstream-client';
import { UpstreamFailure } from '../shared/upstream-failure';
import { jsonObject } from '../shared/upstream-http';
import { decodeRef, encodeRef, readUpstreamId } from '../shared/upstream-ref';
import type { RemoteEngineSettings } from './remote-engine.settings';

const PENDING = new Set(['queued', 'pending', 'starting', 'processing', 'running', 'in_progress']);
const SUCCEEDED = new Set(['succeeded', 'completed', 'success']);
const FAILED = new Set(['failed', 'error', 'canceled', 'cancelled']);

type UpstreamState = { phase: 'pending' } | { phase: 'succeeded'; outputUrl: string } | { phase: 'failed'; reason: string };

/**
 * Our own generic protocol (docs/engines.md, "remote"), for upstreams that are none of the providers
 * below: submit, poll until the upstream job ends, fetch the output into our storage.
 *
 * The job id goes upstream as `Idempotency-Key`, so the submit may be retried after any transient
 * failure (the upstream deduplicates it); the upstream's id is also stored on our job, so a job taken
 * over after a crash polls it without submitting at all.
 */
export class RemoteEngine implements Engine {
  private readonly client: UpstreamClient;

  constructor(
    readonly name: string,
    private readonly settings: RemoteEngineSettings,
    credential: Credential | null,
    allowPrivateNetworks: boolean,
  ) {
    this.client = new UpstreamClient(name, settings, credential, allowPrivateNetworks);
  }

  generate(request: EngineRequest): Promise<EngineOutput> {
    return this.client.run(request, (job) => this.run(job), (ref) => this.cancel(ref));
  }

  async cancel(upstreamRef: string): Promise<boolean> {
    if (!this.settings.cancelPath) return false;
    let id: string;
    try {
      id = decodeRef('remote', upstreamRef);
    } catch {
      return false;
    }
    return this.client.bestEffort(
      { method: 'POST', url: this.client.apiUrl(this.settings.cancelPath.replace('{id}', encodeURIComponent(id))), headers: this.client.apiHeaders() },
      'cancel',
    );
  }

  dispose(): Promise<void> {
    return this.client.close();
  }

  private async run(job: UpstreamJob): Promise<EngineOutput> {
    const { request } = job;
    let id: string;
    let state: UpstreamState;
    if (request.upstreamRef !== null) {
      id = decodeRef('remote', request.upstreamRef);
      job.attach(request.upstreamRef);
      state = await job.retrying(true, () => this.poll(id, job));
    } else {
      // Idempotency-Key: the upstream deduplicates, so even a submit that may have started is repeatable.
      const submitted = await job.retrying(true, () => this.submit(job));
      id = submitted.id;
      await job.saveRef(encodeRef('remote', id));
      state = submitted.state;
    }
    while (state.phase === 'pending') {
      await job.pause(this.settings.pollIntervalMs);
      state = await job.retrying(true, () => this.poll(id, job));
    }
    job.upstreamFinished = true;
    if (state.phase === 'failed') throw new UpstreamFailure('generation_failed', `upstream job ${id} ended: ${state.reason}`);
    const outputUrl = state.outputUrl;
    return job.retrying(true, () => this.client.output.fetch(outputUrl, request.type, job.signal));
  }

  private async submit(job: UpstreamJob): Promise<{ id: string; state: UpstreamState }> {
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
        }),
        maxBytes: MAX_JSON_BYTES,
        tooLarge: 'malformed',
      },
      job.signal,
    );
    const body = jsonObject(answer, 'submit');
    const id = readUpstreamId(body.id, 'submit answer');
    return { id, state: body.status === undefined ? { phase: 'pending' } : readState(body, 'submit') };
  }

  private async poll(id: string, job: UpstreamJob): Promise<UpstreamState> {
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
  if (PENDING.has(status)) return { phase: 'pending' };
  if (FAILED.has(status)) return { phase: 'failed', reason: typeof body.error === 'string' ? body.error.slice(0, 300) : status };
  if (SUCCEEDED.has(status)) {
    const output = body.output_url ?? body.output;
    const url = typeof output === 'string' ? output : Array.isArray(output) && typeof output[0] === 'string' ? output[0] : null;
    if (!url) throw new UpstreamFailure('malformed', `${call}: "${status}" without an output URL`);
    return { phase: 'succeeded', outputUrl: url };
  }
  throw new UpstreamFailure('malformed', `${call}: unknown status ${JSON.stringify(body.status)?.slice(0, 40)}`);
}
