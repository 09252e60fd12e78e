import { createHash } from 'node:crypto';
import type { Engine, EngineOutput, EngineRequest } from '../../engines/engine';
import { isRecord } from '../provider-kind';
import { BindingSettings, generationInput, valueAt } from '../shared/binding-settings';
import { Credential, inlineJsonLimit, UpstreamClient, UpstreamJob } from '../shared/upstream-client';
import { UpstreamFailure } from '../shared/upstream-failure';
import { parseJsonObject, statusFailure } from '../shared/upstream-http';
import { decodeRef, encodeRef } from '../shared/upstream-ref';

const PENDING = new Set(['starting', 'processing']);
const ENDED = new Set(['failed', 'canceled']);
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * A self-hosted Cog container (https://github.com/replicate/cog/blob/main/docs/http.md), so an
 * operator can serve models from their own GPU nodes.
 *
 * Cog has no status endpoint to poll ("Polling for prediction status is not currently supported"),
 * so the prediction is made with its idempotent endpoint `PUT /predictions/{prediction_id}` with
 * `{"input": {...}}`, synchronously: the call answers `{"status", "output", "error"}` when the
 * prediction ends, and lasts as long as it does (bounded by `timeouts.totalMs`, not `requestMs`).
 * - The prediction id is ours, derived from our job id (Cog's recommended form: 26 base32 characters),
 *   and stored on our job before the call. A retry of the job after a crash sends the same id: a
 *   prediction still running under it is attached to (Cog answers its state, `202` while it runs, and
 *   we ask again), never started twice. A prediction that already ended is not remembered by Cog, so
 *   that retry runs it again, on the operator's own GPU: no provider is paid twice.
 * - 409 means every prediction slot is busy (nothing started): Cog has no queue, so we wait for a
 *   slot here, asking again every `pollIntervalMs` until the deadline, without using up retries.
 * - Output: a data URI (Cog's default for files) or a URL (`--upload-url`), or a list of them.
 * - Cancel: `POST /predictions/{prediction_id}/cancel`. Cog also cancels a synchronous prediction whose
 *   connection closes, so when this worker stops waiting (its lease lost, a shutdown) the taker runs
 *   the prediction again rather than attaching to it.
 */
export class CogEngine implements Engine {
  private readonly client: UpstreamClient;
  private readonly inlineLimit: number;

  constructor(
    readonly name: string,
    private readonly settings: BindingSettings,
    credential: Credential | null,
    allowPrivateNetworks: boolean,
  ) {
    this.client = new UpstreamClient(name, settings, credential, allowPrivateNetworks);
    this.inlineLimit = inlineJsonLimit(settings.maxOutputBytes);
  }

  generate(request: EngineRequest): Promise<EngineOutput> {
    return this.client.run(request, (job) => this.run(job), (ref) => this.cancel(ref));
  }

  async cancel(upstreamRef: string): Promise<boolean> {
    let id: string;
    try {
      id = decodeRef('cog', upstreamRef);
    } catch {
      return false;
    }
    return this.client.bestEffort(
      { method: 'POST', url: this.client.apiUrl(`/predictions/${encodeURIComponent(id)}/cancel`), headers: this.client.apiHeaders() },
      'predictions cancel',
    );
  }

  dispose(): Promise<void> {
    return this.client.close();
  }

  private async run(job: UpstreamJob): Promise<EngineOutput> {
    const { request } = job;
    let id: string;
    if (request.upstreamRef !== null) {
      id = decodeRef('cog', request.upstreamRef);
      job.attach(request.upstreamRef);
    } else {
      id = predictionId(request.jobId);
      // Before the call: the id is ours, so the reference can be stored before anything runs.
      await job.saveRef(encodeRef('cog', id));
    }
    let prediction = await this.predictWhenFree(id, job);
    while (PENDING.has(statusOf(prediction))) {
      // Attached to a prediction another attempt started: ask again until it ends.
      await job.pause(this.settings.pollIntervalMs);
      prediction = await this.predictWhenFree(id, job);
    }
    job.upstreamFinished = true;
    const status = statusOf(prediction);
    if (ENDED.has(status)) {
      const error = typeof prediction.error === 'string' ? prediction.error.slice(0, 300) : '';
      throw new UpstreamFailure('generation_failed', `prediction ${id} ${status}${error ? `: ${error}` : ''}`);
    }
    if (status !== 'succeeded') throw new UpstreamFailure('malformed', `prediction ${id}: unknown status ${JSON.stringify(prediction.status)?.slice(0, 40)}`);
    const output = this.settings.outputPath ? valueAt(prediction.output, this.settings.outputPath) : prediction.output;
    const first = Array.isArray(output) ? output.find((item) => typeof item === 'string') : output;
    if (typeof first !== 'string' || first === '') {
      const shape = isRecord(output) ? `an object (${Object.keys(output).slice(0, 5).join(', ')}): set outputPath` : typeof output;
      throw new UpstreamFailure('malformed', `prediction ${id} succeeded without an output (output is ${shape})`);
    }
    return job.retrying(true, () => this.client.output.fetch(first, request.type, job.signal));
  }

  /** `predict`, waiting for a free slot while every one is busy (the deadline bounds the wait). */
  private async predictWhenFree(id: string, job: UpstreamJob): Promise<Record<string, unknown>> {
    for (;;) {
      const answer = await job.retrying(true, () => this.predict(id, job));
      if (answer !== 'busy') return answer;
      await job.pause(this.settings.pollIntervalMs);
    }
  }

  /**
   * `PUT /predictions/{id}`: the prediction's end (200), its state while another call runs it (202),
   * or `busy`: "when all prediction slots are in use, the server returns 409 Conflict" (nothing started).
   */
  private async predict(id: string, job: UpstreamJob): Promise<Record<string, unknown> | 'busy'> {
    const answer = await this.client.http.send(
      {
        method: 'PUT',
        url: this.client.apiUrl(`/predictions/${encodeURIComponent(id)}`),
        headers: this.client.apiHeaders('application/json', { 'content-type': 'application/json' }),
        body: JSON.stringify({ input: generationInput(this.settings, job.request.prompt, job.request.seed) }),
        maxBytes: this.inlineLimit,
        tooLarge: 'output_invalid',
        // The call lasts as long as the prediction: the whole generation's deadline bounds it.
        timeoutMs: job.remainingMs(),
      },
      job.signal,
    );
    if (answer.status === 409) return 'busy';
    const failure = statusFailure(answer, 'predictions');
    if (failure) throw failure;
    return parseJsonObject(answer.body, 'predictions');
  }
}

/** 26 lower-case base32 characters from the job id: Cog's recommended id shape, the same for every attempt. */
export function predictionId(jobId: string): string {
  const bytes = createHash('sha256').update(`cog-prediction:${jobId}`).digest().subarray(0, 16);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function statusOf(prediction: Record<string, unknown>): string {
  return typeof prediction.status === 'string' ? prediction.status : '';
}
