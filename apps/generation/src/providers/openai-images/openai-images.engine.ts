import type { EngineOutput } from '../../ports/engine';
import { isRecord } from '../../ports/engine-kind';
import { BindingSettings, generationInput } from '../common/binding-settings';
import { MAX_OUTPUTS, UpstreamJob } from '../common/upstream-client';
import { UpstreamEngine } from '../common/upstream-engine';
import { UpstreamFailure } from '../common/upstream-failure';
import { jsonObject } from '../common/upstream-http';

export interface OpenAiImagesSettings extends BindingSettings {
  upstreamModel: string;
}

/**
 * The OpenAI Images API (https://platform.openai.com/docs/api-reference/images/create) and the
 * servers compatible with it: `POST {baseUrl}/v1/images/generations` with
 * `{"model", "prompt", "n", ...input}` (`n` 1 unless the input sets it) and `Authorization: Bearer <key>`, answered synchronously
 * with `{"created", "data": [{"b64_json"} | {"url"}, ...]}` (one item per image: every one is kept) (gpt-image models always answer `b64_json`;
 * dall-e models a `url` unless `response_format` says otherwise).
 *
 * Synchronous: there is no upstream job to store or attach to. The call is only repeated when it
 * certainly did not start (no connection, 429, 503): one that timed out or broke mid-answer may have
 * been generated and billed, so it fails (refunded) rather than being paid twice. A crash during the
 * call is the one case where a retried job calls again (docs/operations/providers.md).
 */
export class OpenAiImagesEngine extends UpstreamEngine<OpenAiImagesSettings> {
  protected async run(job: UpstreamJob): Promise<EngineOutput[]> {
    const { request } = job;
    const body = await job.retrying(false, () => this.generateImage(job));
    job.upstreamFinished = true;
    const data: unknown[] = Array.isArray(body.data) ? body.data : [];
    if (data.length === 0) throw new UpstreamFailure('malformed', 'images answer has no data[0]');
    if (data.length > MAX_OUTPUTS) throw new UpstreamFailure('malformed', `images answer has ${data.length} images (at most ${MAX_OUTPUTS})`);
    // Every image the call made (`n`), in its order: inline ones decoded, URLs downloaded.
    return this.client.output.settle(
      data.map(async (item, i) => {
        if (!isRecord(item)) throw new UpstreamFailure('malformed', `images answer data[${i}] is not an object`);
        if (typeof item.b64_json === 'string' && item.b64_json !== '') return this.client.output.fromBase64(item.b64_json, request.type);
        const url = item.url;
        if (typeof url === 'string' && url !== '') return job.retrying(true, () => this.client.output.fetch(url, request.type, job.signal));
        throw new UpstreamFailure('malformed', `images answer data[${i}] has neither b64_json nor url`);
      }),
    );
  }

  private async generateImage(job: UpstreamJob): Promise<Record<string, unknown>> {
    const answer = await this.client.http.send(
      {
        method: 'POST',
        url: this.client.apiUrl('/v1/images/generations'),
        headers: this.client.apiHeaders('application/json', { 'content-type': 'application/json' }),
        body: JSON.stringify({ n: 1, ...generationInput(this.settings, job.request), model: this.settings.upstreamModel }),
        maxBytes: this.inlineLimit,
        tooLarge: 'output_invalid',
      },
      job.signal,
    );
    return jsonObject(answer, 'images.generations');
  }
}
