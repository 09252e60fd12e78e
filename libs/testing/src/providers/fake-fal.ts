import { createHash, generateKeyPairSync, KeyObject, randomUUID, sign } from 'node:crypto';
import { dataUri, FakeServers, LEAK, parseJson, postCallback, sendJson, SentCallback, sleep, startFakeServers } from './fake-provider';

/**
 * A fake of fal's queue API, from its documentation (https://docs.fal.ai/model-endpoints/queue, the
 * cancel reference https://fal.ai/docs/inference-api/queue/cancel and "request errors"
 * https://fal.ai/docs/documentation/model-apis/request-errors):
 * - `POST /{model_id}[/{subpath}]` with the input as the JSON body and `Authorization: Key <key>`:
 *   `{"status": "IN_QUEUE", "request_id", "response_url", "status_url", "cancel_url", "queue_position"}`;
 *   the three URLs are under `/{model_id}/requests/{request_id}` (without the subpath).
 * - `GET .../requests/{id}/status`: `IN_QUEUE` (with `queue_position`), `IN_PROGRESS`, `COMPLETED`.
 * - `GET .../requests/{id}`: the model's output; a request that failed answers there with its error
 *   (422 `{"detail": [{"loc", "msg", "type"}]}` for a model error, 5xx `{"detail", "error_type"}`
 *   for a request error).
 * - `PUT .../requests/{id}/cancel`: 202 `CANCELLATION_REQUESTED`, 400 `ALREADY_COMPLETED`, 404 `NOT_FOUND`.
 * - Webhooks (https://docs.fal.ai/model-endpoints/webhooks): a submit with the `fal_webhook` query
 *   parameter runs on its own clock (`runMs`) and, when done, POSTs `{"request_id", "gateway_request_id",
 *   "status": "OK" | "ERROR", "payload", "error"?}` to it, signed: `X-Fal-Webhook-Request-Id`,
 *   `-User-Id`, `-Timestamp` and `-Signature` (hex ED25519 over `<request id>\n<user id>\n<timestamp>\n<hex
 *   SHA-256 of the body>`), with a key published in the JWKS at `GET /.well-known/jwks.json` (no key
 *   needed; fal serves it from another host, a binding names this one in `callbackJwksUrl`).
 *
 * The model id (`fake-ai/<scenario>`) chooses what happens.
 */
export type FalScenario =
  /** `images: [{url, width, height, content_type}]` (a text-to-image model). */
  | 'image'
  /** `image: {url}`. */
  | 'image-single'
  /** `images[0].url` is a data URI (what `sync_mode` makes). */
  | 'image-data-uri'
  | 'video'
  | 'audio'
  | 'audio-file'
  | 'mesh'
  /** `{"result": {"media": [{"href"}]}}`: found only with outputPath. */
  | 'custom'
  /** The model refused its input: the result answers 422. */
  | 'fails-422'
  /** The runner crashed: the result answers 500 with `error_type`. */
  | 'fails-500'
  /** In the queue, then in progress, for ever. */
  | 'never-finishes'
  /** In progress until the test calls `release()`. */
  | 'held'
  /** In the queue at position 3 until the test calls `release()`, then in progress, then completed. */
  | 'queued'
  /** The first submit answers 429 with `Retry-After: 1`. */
  | 'submit-429'
  | 'submit-500'
  | 'submit-hang'
  /** The first status call answers only after `slowMs`. */
  | 'status-slow'
  /** Every status call answers 503. */
  | 'status-503'
  /** The status URL points at another origin. */
  | 'foreign-urls'
  | 'no-request-id'
  | 'unknown-status'
  /** Completed with `images: []`. */
  | 'no-output'
  | 'output-404'
  | 'output-html';

interface FalRequest {
  id: string;
  app: string;
  scenario: FalScenario;
  input: unknown;
  polls: number;
  state: 'IN_QUEUE' | 'IN_PROGRESS' | 'COMPLETED' | 'CANCELLED';
  slowDone?: boolean;
  webhook?: string;
}

export interface FakeFal extends FakeServers {
  key: string;
  queued: FalRequest[];
  release(): void;
  /** Requests that entered the queue. */
  submits(): number;
  /** The JWKS's URL (on the API origin here). */
  jwksUrl: string;
  /** Publishes a new signing key and signs with it from now on (the old one stays published unless `dropOld`). */
  rotateKey(dropOld?: boolean): void;
  /** Times the JWKS was read. */
  jwksReads(): number;
  callbacks: SentCallback[];
  /** Status reads (`GET .../status`) answered. */
  reads(): number;
  /** Sends a request's webhook again (or altered), as a resend or an attacker would. */
  sendWebhook(id: string, options?: { timestamp?: Date; body?: string; signature?: string; url?: string; key?: KeyObject }): Promise<SentCallback>;
}

export async function startFakeFal(options: { key?: string; slowMs?: number; /** how long a request with a webhook runs (default 50 ms) */ runMs?: number; userId?: string } = {}): Promise<FakeFal> {
  const key = options.key ?? 'fal-key-id:fal-key-secret-456';
  const slowMs = options.slowMs ?? 1_500;
  const runMs = options.runMs ?? 50;
  const userId = options.userId ?? 'fake-fal-user-1';
  const keyPair = () => ({ ...generateKeyPairSync('ed25519'), kid: randomUUID() });
  let signingKeys = [keyPair()];
  const callbacks: SentCallback[] = [];
  let reads = 0;
  let jwksReads = 0;
  const requests = new Map<string, FalRequest>();
  const queued: FalRequest[] = [];
  const throttled = new Set<string>();
  let released = false;
  let servers: FakeServers;

  const output = (r: FalRequest): [number, unknown] => {
    const file = (ext: string) => `${servers.cdnUrl}/files/${r.id}.${ext}`;
    switch (r.scenario) {
      case 'image-single':
        return [200, { image: { url: file('png'), content_type: 'image/png' }, seed: 42 }];
      case 'image-data-uri':
        return [200, { images: [{ url: dataUri('png'), width: 8, height: 8, content_type: 'image/png' }], seed: 42 }];
      case 'video':
        return [200, { video: { url: file('mp4'), content_type: 'video/mp4', file_name: 'output.mp4', file_size: 24 } }];
      case 'audio':
        return [200, { audio: { url: file('wav'), content_type: 'audio/wav' } }];
      case 'audio-file':
        return [200, { audio_file: { url: file('wav'), content_type: 'audio/wav' } }];
      case 'mesh':
        return [200, { model_mesh: { url: file('glb'), content_type: 'model/gltf-binary' } }];
      case 'custom':
        return [200, { result: { media: [{ href: file('png') }] } }];
      case 'fails-422':
        return [422, { detail: [{ loc: ['body', 'prompt'], msg: `prompt was flagged ${LEAK}`, type: 'content_policy_violation' }] }];
      case 'fails-500':
        return [500, { detail: `Runner crashed ${LEAK}`, error_type: 'runner_server_error' }];
      case 'no-output':
        return [200, { images: [], seed: 1 }];
      case 'output-404':
        return [200, { images: [{ url: `${servers.cdnUrl}/files/missing.png` }] }];
      case 'output-html':
        return [200, { images: [{ url: `${servers.cdnUrl}/files/html.png` }] }];
      default: {
        // `num_images` of them (default 1), as fal's text-to-image models answer.
        const input = (r.input ?? {}) as Record<string, unknown>;
        const count = typeof input.num_images === 'number' ? input.num_images : 1;
        const images = Array.from({ length: count }, (_, i) => ({ url: i === 0 ? file('png') : `${servers.cdnUrl}/files/${r.id}-${i}.png`, width: 8, height: 8, content_type: 'image/png' }));
        return [200, { images, seed: 42, has_nsfw_concepts: images.map(() => false), prompt: 'x', timings: {} }];
      }
    }
  };

  const urls = (r: FalRequest) => {
    const base = `${r.scenario === 'foreign-urls' ? servers.cdnUrl : servers.url}/${r.app}/requests/${r.id}`;
    return { response_url: base, status_url: `${base}/status`, cancel_url: `${base}/cancel` };
  };

  const signedHeaders = (requestId: string, body: string, at: Date, with_: KeyObject) => {
    const timestamp = String(Math.floor(at.getTime() / 1000));
    const digest = createHash('sha256').update(body).digest('hex');
    const signature = sign(null, Buffer.from(`${requestId}\n${userId}\n${timestamp}\n${digest}`), with_).toString('hex');
    return { 'x-fal-webhook-request-id': requestId, 'x-fal-webhook-user-id': userId, 'x-fal-webhook-timestamp': timestamp, 'x-fal-webhook-signature': signature };
  };

  const webhookBody = (r: FalRequest) => {
    const [status, result] = output(r);
    const ok = status < 400;
    return JSON.stringify({ request_id: r.id, gateway_request_id: r.id, status: ok ? 'OK' : 'ERROR', ...(ok ? {} : { error: `Invalid status code: ${status}` }), payload: result });
  };

  /** A request submitted with a webhook completes after `runMs` on its own, then calls back (unless it never ends). */
  const runWithWebhook = (r: FalRequest) => {
    if (r.scenario === 'never-finishes') return;
    const tick = () => {
      if (r.state === 'COMPLETED' || r.state === 'CANCELLED') return;
      if (r.scenario === 'held' && !released) return void setTimeout(tick, 20).unref();
      r.state = 'COMPLETED';
      const body = webhookBody(r);
      void postCallback(callbacks, r.webhook as string, signedHeaders(r.id, body, new Date(), signingKeys[signingKeys.length - 1].privateKey), body);
    };
    setTimeout(tick, runMs).unref();
  };

  servers = await startFakeServers(async (req, res, body) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/.well-known/jwks.json') {
      jwksReads++;
      return sendJson(res, 200, { keys: signingKeys.map((k) => ({ ...k.publicKey.export({ format: 'jwk' }), kid: k.kid, use: 'sig', alg: 'EdDSA' })) });
    }
    if (req.headers.authorization !== `Key ${key}`) return sendJson(res, 401, { detail: 'Authentication is required to perform this action.' });
    const request = /^\/([^/]+\/[^/]+)\/requests\/([^/]+)(\/status|\/cancel)?$/.exec(path);
    if (request) {
      const r = requests.get(request[2]);
      if (!r || r.app !== request[1]) return sendJson(res, 404, { detail: 'Request not found', status: 'NOT_FOUND' });
      if (req.method === 'GET' && request[3] === '/status') {
        reads++;
        if (r.scenario === 'status-503') return void res.writeHead(503, { 'content-type': 'text/plain' }).end(LEAK);
        if (r.scenario === 'status-slow' && !r.slowDone) {
          r.slowDone = true;
          await sleep(slowMs);
        }
        r.polls++;
        if ((r.state === 'IN_QUEUE' || r.state === 'IN_PROGRESS') && !r.webhook) {
          if (r.scenario === 'never-finishes') r.state = r.polls < 2 ? 'IN_QUEUE' : 'IN_PROGRESS';
          else if (r.scenario === 'held' && !released) r.state = 'IN_PROGRESS';
          else if (r.scenario === 'queued' && !released) r.state = 'IN_QUEUE';
          else r.state = r.polls === 1 ? 'IN_QUEUE' : r.polls === 2 ? 'IN_PROGRESS' : 'COMPLETED';
        }
        if (r.scenario === 'unknown-status') return sendJson(res, 200, { status: 'EXPLODED', ...urls(r) });
        if (r.state === 'IN_QUEUE') return sendJson(res, 202, { status: 'IN_QUEUE', queue_position: r.scenario === 'queued' ? 3 : 1, request_id: r.id, ...urls(r) });
        if (r.state === 'IN_PROGRESS') return sendJson(res, 202, { status: 'IN_PROGRESS', logs: [], request_id: r.id, ...urls(r) });
        return sendJson(res, 200, { status: 'COMPLETED', logs: [], metrics: { inference_time: 0.01 }, request_id: r.id, ...urls(r) });
      }
      if (req.method === 'GET' && request[3] === undefined) {
        if (r.state !== 'COMPLETED') return sendJson(res, 400, { detail: 'Request is still in progress' });
        const [status, result] = output(r);
        return sendJson(res, status, result);
      }
      if (req.method === 'PUT' && request[3] === '/cancel') {
        if (r.state === 'COMPLETED') return sendJson(res, 400, { status: 'ALREADY_COMPLETED' });
        r.state = 'CANCELLED';
        return sendJson(res, 202, { status: 'CANCELLATION_REQUESTED' });
      }
      return sendJson(res, 405, { detail: 'Method not allowed' });
    }
    const submit = /^\/([^/]+)\/([^/]+)(\/[^/]+)*$/.exec(path);
    if (req.method === 'POST' && submit) {
      const input = parseJson(body);
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        return sendJson(res, 422, { detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }] });
      }
      const scenario = submit[2] as FalScenario;
      switch (scenario) {
        case 'submit-hang':
          return;
        case 'submit-500':
          return void res.writeHead(500, { 'content-type': 'text/plain' }).end(LEAK);
        case 'submit-429':
          if (!throttled.has(submit[2])) {
            throttled.add(submit[2]);
            return sendJson(res, 429, { detail: 'Too many requests' }, { 'retry-after': '1' });
          }
          break;
        default:
          break;
      }
      const webhook = new URL(req.url ?? '/', 'http://fake').searchParams.get('fal_webhook');
      if (webhook !== null && !/^https?:\/\/[^\s]+$/.test(webhook)) return sendJson(res, 422, { detail: [{ loc: ['query', 'fal_webhook'], msg: 'invalid or missing URL scheme', type: 'value_error.url.scheme' }] });
      const r: FalRequest = { id: randomUUID(), app: `${submit[1]}/${submit[2]}`, scenario, input, polls: 0, state: 'IN_QUEUE', webhook: webhook ?? undefined };
      requests.set(r.id, r);
      queued.push(r);
      if (r.webhook) runWithWebhook(r);
      if (scenario === 'no-request-id') return sendJson(res, 200, { status: 'IN_QUEUE', queue_position: 0 });
      return sendJson(res, 200, { status: 'IN_QUEUE', request_id: r.id, ...urls(r), queue_position: 0 });
    }
    sendJson(res, 404, { detail: 'Not found' });
  });

  return Object.assign(servers, {
    key,
    queued,
    release: () => {
      released = true;
    },
    submits: () => queued.length,
    jwksUrl: `${servers.url}/.well-known/jwks.json`,
    rotateKey: (dropOld = false) => {
      signingKeys = dropOld ? [keyPair()] : [...signingKeys, keyPair()];
    },
    jwksReads: () => jwksReads,
    callbacks,
    reads: () => reads,
    sendWebhook: (id: string, o: { timestamp?: Date; body?: string; signature?: string; url?: string; key?: KeyObject } = {}) => {
      const r = requests.get(id);
      if (!r) throw new Error(`no request ${id}`);
      const body = o.body ?? webhookBody(r);
      const headers = signedHeaders(r.id, body, o.timestamp ?? new Date(), o.key ?? signingKeys[signingKeys.length - 1].privateKey);
      if (o.signature !== undefined) headers['x-fal-webhook-signature'] = o.signature;
      return postCallback(callbacks, o.url ?? (r.webhook as string), headers, body);
    },
  });
}
