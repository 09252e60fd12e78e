import type { Engine, EngineOutput, EngineRequest } from '../../engines/engine';
import { isRecord } from '../provider-kind';
import { BindingSettings, generationInput, valueAt } from '../shared/binding-settings';
import { Credential, inlineJsonLimit, UpstreamClient, UpstreamJob } from '../shared/upstream-client';
import { UpstreamFailure } from '../shared/upstream-failure';
import { jsonObject } from '../shared/upstream-http';
import { decodeRef, encodeRef, readUpstreamId } from '../shared/upstream-ref';

export interface ReplicateSettings extends BindingSettings {
  upstreamModel: string;
  /** `Prefer: wait=<seconds>` on the create call (1-60), or null (the default: no wait). */
  preferWait: number | null;
}

/** A pinned version: `owner/name:<64 hex>` or the bare 64-hex version id. */
const VERSION = /(^|:)[0-9a-f]{64}$/;
const PENDING = new Set(['starting', 'processing']);
/** `canceled` (by its creator, or its deadline while running) and `aborted` (its deadline before it started). */
const ENDED = new Set(['failed', 'canceled', 'aborted']);

type Prediction = Record<string, unknown>;

/**
 * Replicate's HTTP API (https://replicate.com/docs/reference/http):
 * - create: `POST /v1/models/{owner}/{name}/predictions` with `{"input": {...}}` (models.predictions.create),
 *   or `POST /v1/predictions` with `{"version", "input"}` for a model pinned by version
 *   (predictions.create); `Authorization: Bearer <token>`; answered 201/202 with the prediction object.
 * - poll: `GET /v1/predictions/{id}` (predictions.get) until `status` is `succeeded`, `failed`,
 *   `canceled` or `aborted` (`starting` and `processing` are pending).
 * - output: a URL, a list of URLs (the first is taken) or a data URI; files are served from
 *   replicate.delivery and its subdomains (the default `outputOrigins`).
 * - cancel: `POST /v1/predictions/{id}/cancel` (predictions.cancel).
 * - `Cancel-After` (https://replicate.com/docs/topics/predictions/create-a-prediction): sent with the
 *   time left before our deadline, so Replicate stops the prediction itself even if this process dies
 *   and no one ever comes back to cancel it.
 * - `Prefer: wait=N` (sync mode, same page): off by default. The create call then answers only after
 *   up to N seconds, and until it answers we do not know the prediction's id: a crash in that window
 *   cannot be re-attached and the retried job pays again. It saves the polls of models that finish
 *   within N seconds; see docs/engines.md for the trade-off.
 */
export class ReplicateEngine implements Engine {
  private readonly client: UpstreamClient;
  private readonly inlineLimit: number;

  constructor(
    readonly name: string,
    private readonly settings: ReplicateSettings,
    credential: Credential,
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
      id = decodeRef('replicate', upstreamRef);
    } catch {
      return false;
    }
    return this.client.bestEffort(
      { method: 'POST', url: this.client.apiUrl(`/v1/predictions/${encodeURIComponent(id)}/cancel`), headers: this.client.apiHeaders() },
      'predictions.cancel',
    );
  }

  dispose(): Promise<void> {
    return this.client.close();
  }

  private async run(job: UpstreamJob): Promise<EngineOutput> {
    const { request } = job;
    let id: string;
    let prediction: Prediction;
    if (request.upstreamRef !== null) {
      // An earlier attempt created it: attach, never create again.
      id = decodeRef('replicate', request.upstreamRef);
      job.attach(request.upstreamRef);
      prediction = await job.retrying(true, () => this.get(id, job));
    } else {
      // Not repeatable: Replicate takes no idempotency key, a second create is a second prediction.
      prediction = await job.retrying(false, () => this.create(job));
      id = readUpstreamId(prediction.id, 'create answer');
      await job.saveRef(encodeRef('replicate', id));
    }
    while (PENDING.has(statusOf(prediction))) {
      await job.pause(this.settings.pollIntervalMs);
      prediction = await job.retrying(true, () => this.get(id, job));
    }
    job.upstreamFinished = true;
    const status = statusOf(prediction);
    if (ENDED.has(status)) {
      const error = typeof prediction.error === 'string' ? prediction.error.slice(0, 300) : '';
      throw new UpstreamFailure('generation_failed', `prediction ${id} ${status}${error ? `: ${error}` : ''}`);
    }
    if (status !== 'succeeded') throw new UpstreamFailure('malformed', `prediction ${id}: unknown status ${JSON.stringify(prediction.status)?.slice(0, 40)}`);
    const output = this.outputOf(prediction, id);
    return job.retrying(true, () => this.client.output.fetch(output, request.type, job.signal));
  }

  private async create(job: UpstreamJob): Promise<Prediction> {
    const model = this.settings.upstreamModel;
    const input = generationInput(this.settings, job.request.prompt, job.request.seed);
    const pinned = VERSION.test(model);
    const [owner, name] = model.split('/');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      // Replicate's own deadline for the prediction (at least 5 s, its minimum), in seconds.
      'cancel-after': `${Math.max(5, Math.ceil(job.remainingMs() / 1000))}s`,
    };
    if (this.settings.preferWait !== null) headers.prefer = `wait=${this.settings.preferWait}`;
    const answer = await this.client.http.send(
      {
        method: 'POST',
        url: this.client.apiUrl(pinned ? '/v1/predictions' : `/v1/models/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/predictions`),
        headers: this.client.apiHeaders('application/json', headers),
        body: JSON.stringify(pinned ? { version: model, input } : { input }),
        maxBytes: this.inlineLimit,
        tooLarge: 'output_invalid',
      },
      job.signal,
    );
    return jsonObject(answer, 'create');
  }

  private async get(id: string, job: UpstreamJob): Promise<Prediction> {
    const answer = await this.client.http.send(
      {
        method: 'GET',
        url: this.client.apiUrl(`/v1/predictions/${encodeURIComponent(id)}`),
        headers: this.client.apiHeaders(),
        maxBytes: this.inlineLimit,
        tooLarge: 'output_invalid',
      },
      job.signal,
    );
    return jsonObject(answer, 'predictions.get');
  }

  /** The output URL or data URI: `output` itself, its first string, or the value at `outputPath` in it. */
  private outputOf(prediction: Prediction, id: string): string {
    const output = this.settings.outputPath ? valueAt(prediction.output, this.settings.outputPath) : prediction.output;
    const first = Array.isArray(output) ? output.find((item) => typeof item === 'string') : output;
    if (typeof first === 'string' && first !== '') return first;
    // Replicate removes inputs and outputs of API predictions after an hour (`data_removed`).
    if (prediction.data_removed === true) throw new UpstreamFailure('output_unavailable', `prediction ${id}: output removed upstream`);
    const shape = isRecord(output) ? `an object (${Object.keys(output).slice(0, 5).join(', ')}): set outputPath` : typeof output;
    throw new UpstreamFailure('malformed', `prediction ${id} succeeded without an output URL (output is ${shape})`);
  }
}

function statusOf(prediction: Prediction): string {
  return typeof prediction.status === 'string' ? prediction.status : '';
}
