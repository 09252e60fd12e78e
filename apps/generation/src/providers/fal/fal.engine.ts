import type { GenerationType } from '@gen/contracts';
import type { EngineOutput, UpstreamPending } from '../../ports/engine';
import { isRecord } from '../../ports/engine-kind';
import { BindingSettings, generationInput } from '../common/binding-settings';
import { stringsAt } from '../common/result-path';
import { MAX_JSON_BYTES, UpstreamJob } from '../common/upstream-client';
import { CancelCall, SubmitAndPollEngine } from '../common/upstream-engine';
import { UpstreamFailure } from '../common/upstream-failure';
import { jsonObject, parseJsonObject, snippet } from '../common/upstream-http';
import { readUpstreamId } from '../common/upstream-ref';
import { FalCallbackVerifier } from './fal.callback';

export interface FalSettings extends BindingSettings {
  upstreamModel: string;
  /** Where fal publishes the keys of its callback signatures (its JWKS). */
  callbackJwksUrl: string;
}

/** What we store on our job: the request id and the three URLs the submit answered (all on the API's origin). */
interface FalRef {
  id: string;
  status: string;
  response: string;
  cancel: string;
}

/** A request's state in the queue (any other status is an answer we do not understand), with its place while `IN_QUEUE`. */
interface QueueState {
  status: 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED';
  queuePosition?: number;
}

/** Where each type's output URLs are in a result, by the shapes fal's model APIs document (the first path that has any). */
const OUTPUT_PATHS: Record<GenerationType, string[][]> = {
  TEXT_TO_IMAGE: [
    ['images', '*', 'url'],
    ['image', 'url'],
  ],
  TEXT_TO_VIDEO: [['video', 'url']],
  TEXT_TO_AUDIO: [
    ['audio', 'url'],
    ['audio_file', 'url'],
  ],
  TEXT_TO_3D: [['model_mesh', 'url']],
};

/**
 * fal's queue API (https://docs.fal.ai/model-endpoints/queue, https://fal.ai/docs/inference-api/queue/cancel):
 * - submit: `POST {baseUrl}/{model_id}` with the input as the body and `Authorization: Key <key>`;
 *   answered with `request_id`, `status_url`, `response_url` and `cancel_url`.
 * - poll: `GET status_url` until `status` is `COMPLETED` (`IN_QUEUE` with `queue_position`, then
 *   `IN_PROGRESS`).
 * - result: `GET response_url`: the model's outputs (every `images[].url`, `video.url`, `audio.url` /
 *   `audio_file.url`, `model_mesh.url`, or `outputPath`). A request that failed answers there with
 *   an error status and `detail` (`error_type` for infrastructure errors, docs "request errors").
 * - cancel: `PUT cancel_url`.
 * The three URLs are kept only when they are on the API's origin (the key goes with them), and are
 * checked again when read back from our job after a crash.
 */
export class FalEngine extends SubmitAndPollEngine<FalSettings, FalRef, QueueState> {
  protected readonly kind = 'fal';
  readonly callbacks = new FalCallbackVerifier(this.client.http, this.settings.callbackJwksUrl);

  protected storeRef(ref: FalRef): string {
    return JSON.stringify(ref);
  }

  /** Our stored reference, its URLs checked again: a reference is data from our database, not trusted blindly. */
  protected loadRef(stored: string): FalRef {
    let parsed: unknown;
    try {
      parsed = JSON.parse(stored);
    } catch {
      throw new UpstreamFailure('malformed', 'stored fal reference is not JSON', { retryable: false });
    }
    if (!isRecord(parsed)) throw new UpstreamFailure('malformed', 'stored fal reference is not an object');
    return {
      id: readUpstreamId(parsed.id, 'stored fal reference'),
      status: this.client.ownApiUrl(parsed.status, 'stored status URL').href,
      response: this.client.ownApiUrl(parsed.response, 'stored response URL').href,
      cancel: this.client.ownApiUrl(parsed.cancel, 'stored cancel URL').href,
    };
  }

  protected async submit(job: UpstreamJob): Promise<{ ref: FalRef }> {
    // Not repeatable: the queue takes no idempotency key, a second submit is a second request.
    return { ref: await job.retrying(false, () => this.submitRequest(job)) };
  }

  protected async poll(ref: FalRef, job: UpstreamJob): Promise<QueueState> {
    const status = await job.retrying(true, () => this.status(ref, job));
    const state = typeof status.status === 'string' ? status.status : '';
    if (state !== 'COMPLETED' && state !== 'IN_QUEUE' && state !== 'IN_PROGRESS') {
      throw new UpstreamFailure('malformed', `status of ${ref.id}: unknown status ${JSON.stringify(status.status)?.slice(0, 40)}`);
    }
    const position = status.queue_position;
    return state === 'IN_QUEUE' && Number.isInteger(position) && (position as number) >= 0 ? { status: state, queuePosition: position as number } : { status: state };
  }

  /** `COMPLETED` is success or failure alike: the result endpoint says which. */
  protected isPending(state: QueueState): boolean {
    return state.status !== 'COMPLETED';
  }

  /** `IN_QUEUE` says how many requests are ahead (`queue_position`): the record's `queue_position` while it waits there. */
  protected override pendingDetail(state: QueueState): UpstreamPending {
    return state.queuePosition === undefined ? {} : { queuePosition: state.queuePosition };
  }

  protected async finish(ref: FalRef, _state: QueueState, job: UpstreamJob): Promise<EngineOutput[]> {
    const result = await job.retrying(true, () => this.result(ref, job));
    return job.fetchOutputs(this.outputsOf(result, job.request.type, ref.id));
  }

  protected cancelCall(ref: FalRef): CancelCall {
    return { call: { method: 'PUT', url: new URL(ref.cancel), headers: this.client.apiHeaders() }, what: 'queue cancel' };
  }

  private async submitRequest(job: UpstreamJob): Promise<FalRef> {
    const answer = await this.client.http.send(
      {
        method: 'POST',
        url: this.submitUrl(job),
        headers: this.client.apiHeaders('application/json', { 'content-type': 'application/json' }),
        body: JSON.stringify(generationInput(this.settings, job.request)),
        maxBytes: MAX_JSON_BYTES,
        tooLarge: 'malformed',
      },
      job.signal,
    );
    const body = jsonObject(answer, 'queue submit');
    const id = readUpstreamId(body.request_id, 'queue submit answer');
    // The documented URLs of a request are under the app (owner/alias), without the model's subpath.
    const base = `/${this.settings.upstreamModel.split('/').slice(0, 2).join('/')}/requests/${encodeURIComponent(id)}`;
    const url = (value: unknown, path: string, what: string) =>
      (value === undefined ? this.client.apiUrl(`${base}${path}`) : this.client.ownApiUrl(value, `queue submit answer's ${what}`)).href;
    return {
      id,
      status: url(body.status_url, '/status', 'status_url'),
      response: url(body.response_url, '', 'response_url'),
      cancel: url(body.cancel_url, '/cancel', 'cancel_url'),
    };
  }

  /** `{baseUrl}/{model}`, with `fal_webhook` (the queue's callback) when the binding has `"callbacks": true`. */
  private submitUrl(job: UpstreamJob): URL {
    const url = this.client.apiUrl(`/${this.settings.upstreamModel}`);
    if (this.settings.callbacks && job.request.callbackUrl) url.searchParams.set('fal_webhook', job.request.callbackUrl);
    return url;
  }

  private async status(ref: FalRef, job: UpstreamJob): Promise<Record<string, unknown>> {
    const answer = await this.client.http.send(
      { method: 'GET', url: new URL(ref.status), headers: this.client.apiHeaders(), maxBytes: MAX_JSON_BYTES, tooLarge: 'malformed' },
      job.signal,
    );
    return jsonObject(answer, 'queue status');
  }

  private async result(ref: FalRef, job: UpstreamJob): Promise<Record<string, unknown>> {
    const answer = await this.client.http.send(
      { method: 'GET', url: new URL(ref.response), headers: this.client.apiHeaders(), maxBytes: this.inlineLimit, tooLarge: 'output_invalid' },
      job.signal,
    );
    // A failed request answers its result with an error status and fal's error body (`detail`,
    // `error_type`): the request is over, asking again gives the same answer.
    const error = answer.status >= 500 ? falError(answer.body) : null;
    if (error) throw new UpstreamFailure('generation_failed', `result of ${ref.id}: HTTP ${answer.status} ${error}`);
    return jsonObject(answer, 'queue result');
  }

  private outputsOf(result: Record<string, unknown>, type: GenerationType, id: string): string[] {
    const paths = this.settings.outputPath ? [this.settings.outputPath] : OUTPUT_PATHS[type];
    for (const path of paths) {
      const values = stringsAt(result, path);
      if (values.length > 0) return values;
    }
    const keys = Object.keys(result).slice(0, 8).join(', ');
    throw new UpstreamFailure('malformed', `result of ${id} has no output at ${paths.map((p) => p.join('.')).join(' or ')} (keys: ${keys}): set outputPath`);
  }
}

/** fal's error body (`{"detail", "error_type"}`), for the log; null when the body is not one. */
function falError(body: Buffer): string | null {
  let parsed: Record<string, unknown>;
  try {
    parsed = parseJsonObject(body, 'result');
  } catch {
    return null;
  }
  if (parsed.detail === undefined && parsed.error_type === undefined) return null;
  return `(${String(parsed.error_type ?? 'model error')}): ${snippet(Buffer.from(JSON.stringify(parsed.detail ?? '')))}`;
}
