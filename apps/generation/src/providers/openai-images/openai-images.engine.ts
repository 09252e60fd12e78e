import type { EngineOutput } from '../../engines/engine';
import { isRecord } from '../provider-kind';
import { BindingSettings, generationInput } from '../shared/binding-settings';
import type { UpstreamJob } from '../shared/upstream-client';
import { UpstreamEngine } from '../shared/upstream-engine';
import { UpstreamFailure } from '../shared/upstream-failure';
import { jsonObject } from '../shared/upstream-http';

export interface OpenAiImagesSettings extends BindingSettings {
  upstreamModel: string;
}

/**
 * The OpenAI Images API (https://platform.openai.com/docs/api-reference/images/create) and the
 * servers compatible with it: `POST {baseUrl}/v1/images/generations` with
 * `{"model", "prompt", "n": 1, ...input}` and `Authorization: Bearer <key>`, answered synchronously
 * with `{"created", "data": [{"b64_json"} | {"url"}]}` (gpt-image models always answer `b64_json`;
 * dall-e models a `url` unless `response_format` says otherwise).
 *
 * Synchronous: there is no upstream job to store or attach to. The call is only repeated when it
 * certainly did not start (no connection, 429, 503): one that timed out or broke mid-answer may have
 * been generated and billed, so it fails (refunded) rather than being paid twice. A crash during the
 * call is the one case where a retried job calls again (docs/engines.md).
 */
export class OpenAiImagesEngine extends UpstreamEngine<OpenAiImagesSettings> {
  protected async run(job: UpstreamJob): Promise<EngineOutput> {
    const { request } = job;
    const body = await job.retrying(false, () => this.generateImage(job));
    job.upstreamFinished = true;
    const first: unknown = Array.isArray(body.data) ? body.data[0] : undefined;
    if (!isRecord(first)) throw new UpstreamFailure('malformed', 'images answer has no data[0]');
    if (typeof first.b64_json === 'string' && first.b64_json !== '') return this.client.output.fromBase64(first.b64_json, request.type);
    const url = first.url;
    if (typeof url === 'string' && url !== '') return job.retrying(true, () => this.client.output.fetch(url, request.type, job.signal));
    throw new UpstreamFailure('malformed', 'images answer data[0] has neither b64_json nor url');
  }

  private async generateImage(job: UpstreamJob): Promise<Record<string, unknown>> {
    const answer = await this.client.http.send(
      {
        method: 'POST',
        url: this.client.apiUrl('/v1/images/generations'),
        headers: this.client.apiHeaders('application/json', { 'content-type': 'application/json' }),
        body: JSON.stringify({ ...generationInput(this.settings, job.request.prompt, job.request.seed), model: this.settings.upstreamModel, n: 1 }),
        maxBytes: this.inlineLimit,
        tooLarge: 'output_invalid',
      },
      job.signal,
    );
    return jsonObject(answer, 'images.generations');
  }
}
