import { ASSETS, FakeServers, LEAK, parseJson, sendJson, sleep, startFakeServers } from './fake-provider';

/**
 * A fake of the OpenAI Images API, from its reference
 * (https://platform.openai.com/docs/api-reference/images/create, and the error shape of
 * https://platform.openai.com/docs/guides/error-codes):
 * - `POST /v1/images/generations` with `{"prompt", "model", "n", "size", "quality", "response_format", ...}`
 *   and `Authorization: Bearer <key>`; answered synchronously with
 *   `{"created", "data": [{"b64_json"} | {"url", "revised_prompt"}]}`.
 * - gpt-image models always answer `b64_json` and refuse `response_format`; dall-e models answer a
 *   `url` unless `response_format` is `b64_json`.
 * - Errors: `{"error": {"message", "type", "param", "code"}}`: 401 `invalid_api_key` (its message
 *   quotes part of the key), 400 `content_policy_violation`, 429 rate limits, 500/503 server errors.
 * The model name chooses what happens (`gpt-image-1`, `dall-e-3`, or a `fake-*` scenario).
 */
export type OpenAiImagesScenario =
  | 'gpt-image-1'
  | 'dall-e-3'
  /** 400 content_policy_violation. */
  | 'fake-content-policy'
  /** The first call answers 429 with `retry-after: 1`. */
  | 'fake-rate-limited'
  /** 500. */
  | 'fake-server-error'
  /** The first call answers 503 (overloaded). */
  | 'fake-overloaded'
  /** Answers after `slowMs`. */
  | 'fake-slow'
  /** `data: []`. */
  | 'fake-empty'
  /** 200 with an HTML page. */
  | 'fake-html'
  /** `b64_json` of an HTML page. */
  | 'fake-not-image'
  /** A URL that answers 404. */
  | 'fake-gone';

export interface FakeOpenAiImages extends FakeServers {
  key: string;
  /** Generations actually made (what the account is billed for). */
  generated(): number;
}

export async function startFakeOpenAiImages(options: { key?: string; slowMs?: number } = {}): Promise<FakeOpenAiImages> {
  const key = options.key ?? 'sk-fake-openai-key-0123456789';
  const slowMs = options.slowMs ?? 1_500;
  const once = new Set<string>();
  let generated = 0;
  let servers: FakeServers;

  const error = (status: number, message: string, type: string, code: string | null, headers: Record<string, string> = {}) => ({
    status,
    body: { error: { message, type, param: null, code } },
    headers,
  });

  servers = await startFakeServers(async (req, res, body) => {
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== '/v1/images/generations') {
      return sendJson(res, 404, { error: { message: 'Invalid URL', type: 'invalid_request_error', param: null, code: null } });
    }
    const auth = String(req.headers.authorization ?? '');
    if (auth !== `Bearer ${key}`) {
      const shown = auth.replace(/^Bearer /, '');
      const e = error(401, `Incorrect API key provided: ${shown.slice(0, 3)}*****${shown.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`, 'invalid_request_error', 'invalid_api_key');
      return sendJson(res, e.status, e.body);
    }
    const parsed = parseJson(body);
    const request = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
    if (!request || typeof request.prompt !== 'string' || request.prompt === '') {
      const e = error(400, "Missing required parameter: 'prompt'.", 'invalid_request_error', 'missing_required_parameter');
      return sendJson(res, e.status, e.body);
    }
    if (request.n !== undefined && (!Number.isInteger(request.n) || (request.n as number) < 1 || (request.n as number) > 10)) {
      const e = error(400, `Invalid 'n': integer between 1 and 10 expected.`, 'invalid_request_error', 'invalid_value');
      return sendJson(res, e.status, e.body);
    }
    const model = (typeof request.model === 'string' ? request.model : 'dall-e-2') as OpenAiImagesScenario;
    const gptImage = model.startsWith('gpt-image');
    if (gptImage && request.response_format !== undefined) {
      const e = error(400, "Unknown parameter: 'response_format'.", 'invalid_request_error', 'unknown_parameter');
      return sendJson(res, e.status, e.body);
    }
    switch (model) {
      case 'fake-content-policy': {
        const e = error(400, `Your request was rejected as a result of our safety system. ${LEAK}`, 'image_generation_user_error', 'content_policy_violation');
        return sendJson(res, e.status, e.body);
      }
      case 'fake-rate-limited':
        if (!once.has(model)) {
          once.add(model);
          const e = error(429, 'Rate limit reached for images per minute. Please try again in 1s.', 'requests', 'rate_limit_exceeded');
          return sendJson(res, e.status, e.body, { 'retry-after': '1' });
        }
        break;
      case 'fake-overloaded':
        if (!once.has(model)) {
          once.add(model);
          const e = error(503, 'The engine is currently overloaded, please try again later.', 'server_error', null);
          return sendJson(res, e.status, e.body);
        }
        break;
      case 'fake-server-error': {
        generated++; // made, then failed: whether it was billed is unknown to the caller
        const e = error(500, `The server had an error while processing your request. ${LEAK}`, 'server_error', null);
        return sendJson(res, e.status, e.body);
      }
      case 'fake-slow':
        generated++;
        await sleep(slowMs);
        break;
      case 'fake-html':
        return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<html>${LEAK}</html>`);
      default:
        break;
    }
    if (model !== 'fake-slow') generated++;
    const created = Math.floor(Date.now() / 1000);
    if (model === 'fake-empty') return sendJson(res, 200, { created, data: [] });
    if (model === 'fake-not-image') return sendJson(res, 200, { created, data: [{ b64_json: Buffer.from(`<html>${LEAK}</html>`).toString('base64') }] });
    if (model === 'fake-gone') return sendJson(res, 200, { created, data: [{ url: `${servers.cdnUrl}/files/missing.png` }] });
    const wantsUrl = !gptImage && request.response_format !== 'b64_json';
    const image = wantsUrl
      ? { url: `${servers.cdnUrl}/files/img-${created}.png`, revised_prompt: request.prompt }
      : { b64_json: ASSETS.png.toString('base64') };
    const usage = gptImage ? { usage: { total_tokens: 100, input_tokens: 50, output_tokens: 50, input_tokens_details: { text_tokens: 50, image_tokens: 0 } } } : {};
    // `n` images (default 1), each its own file or base64.
    const count = typeof request.n === 'number' ? request.n : 1;
    const data = Array.from({ length: count }, (_, i) => ('url' in image ? { ...image, url: `${servers.cdnUrl}/files/img-${created}-${i}.png` } : image));
    return sendJson(res, 200, { created, data, ...usage });
  });

  return Object.assign(servers, { key, generated: () => generated });
}
