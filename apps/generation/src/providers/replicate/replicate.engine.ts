import { BindingSettings, generationInput } from '../common/binding-settings';
import { Prediction, PredictionEngine } from '../common/prediction';
import type { UpstreamJob } from '../common/upstream-client';
import type { CancelCall } from '../common/upstream-engine';
import { jsonObject } from '../common/upstream-http';
import { readUpstreamId } from '../common/upstream-ref';
import { ReplicateCallbackVerifier } from './replicate.callback';
import { callbackFields } from '../common/prediction-webhook';

export interface ReplicateSettings extends BindingSettings {
  upstreamModel: string;
  /** `Prefer: wait=<seconds>` on the create call (1-60), or null (the default: no wait). */
  preferWait: number | null;
}

/** A pinned version: `owner/name:<64 hex>` or the bare 64-hex version id. */
const VERSION = /(^|:)[0-9a-f]{64}$/;

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
 *   within N seconds; see docs/operations/providers.md for the trade-off.
 */
export class ReplicateEngine extends PredictionEngine<ReplicateSettings> {
  protected readonly kind = 'replicate';
  readonly callbacks = new ReplicateCallbackVerifier(this.client);

  protected async submit(job: UpstreamJob): Promise<{ ref: string; state: Prediction }> {
    // Not repeatable: Replicate takes no idempotency key, a second create is a second prediction.
    const prediction = await job.retrying(false, () => this.create(job));
    return { ref: readUpstreamId(prediction.id, 'create answer'), state: prediction };
  }

  protected poll(id: string, job: UpstreamJob): Promise<Prediction> {
    return job.retrying(true, () => this.get(id, job));
  }

  protected cancelCall(id: string): CancelCall {
    return {
      call: { method: 'POST', url: this.client.apiUrl(`/v1/predictions/${encodeURIComponent(id)}/cancel`), headers: this.client.apiHeaders() },
      what: 'predictions.cancel',
    };
  }

  private async create(job: UpstreamJob): Promise<Prediction> {
    const model = this.settings.upstreamModel;
    const input = generationInput(this.settings, job.request);
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
        body: JSON.stringify({ ...(pinned ? { version: model, input } : { input }), ...callbackFields(this.settings, job) }),
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
}
