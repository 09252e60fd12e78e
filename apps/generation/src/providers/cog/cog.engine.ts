import { createHash } from 'node:crypto';
import { BindingSettings, generationInput } from '../common/binding-settings';
import { Prediction, PredictionEngine } from '../common/prediction';
import type { UpstreamJob } from '../common/upstream-client';
import type { CancelCall } from '../common/upstream-engine';
import { parseJsonObject, statusFailure } from '../common/upstream-http';
import { callbackFields } from '../common/prediction-webhook';
import { CogCallbackVerifier } from './cog.callback';

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
 * - Not parked (docs/design/jobs.md, "Waiting upstream"): the call is the wait, so it holds one of the
 *   provider pool's slots (PROVIDER_CONCURRENCY) for as long as the prediction runs.
 * - Cancel: `POST /predictions/{prediction_id}/cancel`. Cog also cancels a synchronous prediction whose
 *   connection closes, so when this worker stops waiting (its lease lost, a shutdown) the taker runs
 *   the prediction again rather than attaching to it.
 */
export class CogEngine extends PredictionEngine<BindingSettings> {
  protected readonly kind = 'cog';
  readonly callbacks = new CogCallbackVerifier();
  /** Not parked: the prediction is one call that lasts as long as it runs (and Cog cancels it if the call is dropped). */
  override readonly phases = undefined;

  /** Nothing to call: the id is ours, so the reference is stored before anything runs. */
  protected submit(job: UpstreamJob): Promise<{ ref: string }> {
    return Promise.resolve({ ref: predictionId(job.request.jobId) });
  }

  /** The same idempotent call starts the prediction and, while another call runs it, tells its state. */
  protected poll(id: string, job: UpstreamJob): Promise<Prediction> {
    return this.predictWhenFree(id, job);
  }

  protected cancelCall(id: string): CancelCall {
    return {
      call: { method: 'POST', url: this.client.apiUrl(`/predictions/${encodeURIComponent(id)}/cancel`), headers: this.client.apiHeaders() },
      what: 'predictions cancel',
    };
  }

  /** `predict`, waiting for a free slot while every one is busy (the deadline bounds the wait). */
  private async predictWhenFree(id: string, job: UpstreamJob): Promise<Prediction> {
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
  private async predict(id: string, job: UpstreamJob): Promise<Prediction | 'busy'> {
    const answer = await this.client.http.send(
      {
        method: 'PUT',
        url: this.client.apiUrl(`/predictions/${encodeURIComponent(id)}`),
        headers: this.client.apiHeaders('application/json', { 'content-type': 'application/json' }),
        body: JSON.stringify({ input: generationInput(this.settings, job.request), ...callbackFields(this.settings, job) }),
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
