import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { AssetName, dataUri, FakeServers, LEAK, parseJson, postCallback, sendJson, SentCallback, sleep, startFakeServers } from './fake-provider';

/**
 * A fake of Replicate's HTTP API, from its reference (https://replicate.com/docs/reference/http, the
 * OpenAPI description it links to) and the sync-mode and deadline pages
 * (https://replicate.com/docs/topics/predictions/create-a-prediction):
 * - `POST /v1/models/{owner}/{name}/predictions` with `{"input"}` (models.predictions.create) and
 *   `POST /v1/predictions` with `{"version", "input"}` (predictions.create): 201 with the prediction
 *   object; unknown fields are refused (the request schema has `additionalProperties: false`).
 *   `Prefer: wait=n` (1-60) holds the answer until the prediction ends or n seconds pass (then 202).
 *   `Cancel-After` (>= 5 s, `30s`, `5m`, `1h30m`...) is checked and recorded.
 * - `GET /v1/predictions/{id}` (predictions.get): `starting`, `processing`, then `succeeded`,
 *   `failed`, `canceled` or `aborted`; `output` a URL, a list of URLs or a data URI.
 * - `POST /v1/predictions/{id}/cancel` (predictions.cancel).
 * - `Authorization: Bearer <token>`; errors are problem details (`{"title", "detail", "status"}`).
 * - Webhooks (https://replicate.com/docs/topics/webhooks, ".../verify-webhook"): a create with
 *   `webhook` (an https or http URL) and `webhook_events_filter` (`start`, `output`, `logs`,
 *   `completed`) runs on its own clock (`durationMs`) and, when it ends, POSTs the prediction to the URL
 *   for `completed`, signed as Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 *   `webhook-signature: v1,<base64>`) with the account's secret, which
 *   `GET /v1/webhooks/default/secret` answers as `{"key": "whsec_..."}`. A delivery answered other
 *   than 2xx is retried (`webhookRetries` times, `webhookRetryMs` apart) with the same `webhook-id`.
 *
 * The model name (`fake/<scenario>`) chooses what happens; a pinned version (64 hex) runs `ok`.
 */
export type ReplicateScenario =
  /** starting -> processing -> succeeded; output a list of PNG URLs, `input.num_outputs` of them (default 1), like flux-schnell. */
  | 'ok'
  /** Output a single URL string. */
  | 'ok-string'
  /** Output a data URI (what sync mode answers). */
  | 'ok-data-uri'
  /** Output a JPEG URL. */
  | 'ok-jpeg'
  | 'ok-video'
  | 'ok-audio'
  | 'ok-3d'
  /** Output `{"image": <url>, "seed": 1}`: only found with outputPath. */
  | 'object-output'
  /** The prediction fails, with a leaky error text. */
  | 'fails'
  /** The prediction is canceled upstream. */
  | 'canceled-upstream'
  /** Aborted: its deadline passed before it started. */
  | 'aborted'
  /** Processing for ever (until cancelled). */
  | 'never-finishes'
  /** Processing until the test calls `release()`. */
  | 'held'
  /** The first create answers 429 with `Retry-After: 1`, the next is accepted. */
  | 'create-429'
  /** Create answers 429 with `Retry-After: 3600`. */
  | 'create-429-long'
  /** Create answers 500 (and may or may not have created it). */
  | 'create-500'
  /** Create never answers. */
  | 'create-hang'
  /** Create answers 201 with an HTML page. */
  | 'create-html'
  /** Create answers a prediction without an id. */
  | 'create-no-id'
  /** The first poll answers only after `slowMs`. */
  | 'poll-slow'
  /** The first poll answers 503. */
  | 'poll-503-once'
  /** Every poll answers 503. */
  | 'poll-503'
  /** A status outside the documented ones. */
  | 'unknown-status'
  /** Succeeded, output null. */
  | 'no-output'
  /** Succeeded, output removed (`data_removed`, an hour later). */
  | 'removed'
  /** Succeeded, the output URL answers 404. */
  | 'output-404'
  /** Succeeded, the output is an HTML page served as image/png. */
  | 'output-html';

interface Prediction {
  id: string;
  scenario: ReplicateScenario;
  model: string;
  version: string;
  input: Record<string, unknown>;
  status: string;
  output: unknown;
  error: string | null;
  polls: number;
  created_at: string;
  data_removed: boolean;
  /** poll-503-once / poll-slow: the first poll has had its trouble. */
  failedOnce?: boolean;
  webhook?: string;
  webhookEvents?: string[];
}

export interface FakeReplicate extends FakeServers {
  token: string;
  /** Predictions created, in order (a create answered 429, 500 or not at all created none). */
  predictions: Prediction[];
  /** Lets every `held` prediction succeed at its next poll. */
  release(): void;
  /** Requests that created a prediction. */
  creates(): number;
  /** The account's webhook signing secret (`whsec_...`); `rotateSecret()` replaces it. */
  webhookSecret: string;
  rotateSecret(): string;
  /** Every webhook delivery made, with our service's answer. */
  callbacks: SentCallback[];
  /** Status reads (`GET /v1/predictions/{id}`) answered. */
  reads(): number;
  /** Sends a prediction's `completed` webhook again (or with changes), as a resend or an attacker would. */
  sendWebhook(
    id: string,
    options?: { webhookId?: string; timestamp?: Date; secret?: string; body?: string; signature?: string; url?: string },
  ): Promise<SentCallback>;
  /** Predictions running now (created, not ended), and the most there ever were at once. */
  inFlight(): number;
  peakInFlight(): number;
}

/**
 * A running prediction's logs as a model prints them: a tqdm progress bar per poll so far (20% more
 * each, at most 80%), which is where Replicate's API says how far a prediction is.
 */
function logsOf(p: Prediction): string {
  if (p.status !== 'processing') return '';
  const lines = ['Using seed: 1'];
  for (let i = 1; i <= Math.min(4, p.polls); i++) lines.push(`${String(i * 20).padStart(3)}%|${'#'.repeat(i * 2).padEnd(10)}| ${i}/5 [00:0${i}<00:0${5 - i}, 1.00it/s]`);
  return `${lines.join('\n')}\n`;
}

/** Replicate's ids look like `gm3qorzdhgbfurvjtvhg6dckhu`: 26 lower-case base32 characters. */
function predictionId(): string {
  return [...randomBytes(26)].map((b) => 'abcdefghijklmnopqrstuvwxyz234567'[b & 31]).join('');
}

const VERSION = /^(?:[\w.-]+\/[\w.-]+:)?([0-9a-f]{64})$/;
const OFFICIAL = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/;
const PREFER = /^wait(=([1-9]|[1-9][0-9]|60))?$/;
const CANCEL_AFTER = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$/;

/**
 * `durationMs`: each prediction runs that long from its create (wall clock, whatever the polls), as a
 * real model does, instead of ending at its second poll (benchmarks and parking specs). A prediction
 * made with a webhook always runs on the clock (`durationMs`, default 50 ms), then calls back.
 */
export async function startFakeReplicate(
  options: { token?: string; slowMs?: number; durationMs?: number; webhookRetries?: number; webhookRetryMs?: number } = {},
): Promise<FakeReplicate> {
  const token = options.token ?? 'r8_fake-replicate-token-123';
  const slowMs = options.slowMs ?? 1_500;
  const durationMs = options.durationMs;
  let inFlight = 0;
  let peakInFlight = 0;
  const running = new Set<string>();
  /** The prediction is no longer running (ended, canceled): it leaves the in-flight count. */
  const ended = (p: Prediction) => {
    if (running.delete(p.id)) inFlight--;
  };
  const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
  let webhookSecret = newSecret();
  const callbacks: SentCallback[] = [];
  let reads = 0;
  const predictions = new Map<string, Prediction>();
  const ordered: Prediction[] = [];
  const seen429 = new Set<string>();
  let released = false;
  let createCount = 0;
  let servers: FakeServers;

  const problem = (res: ServerResponse, status: number, title: string, detail: string) =>
    sendJson(res, status, { title, detail, status }, { 'content-type': 'application/problem+json' });

  const asset = (scenario: ReplicateScenario): AssetName =>
    scenario === 'ok-video' ? 'mp4' : scenario === 'ok-audio' ? 'wav' : scenario === 'ok-3d' ? 'glb' : scenario === 'ok-jpeg' ? 'jpeg' : 'png';

  /** The prediction ends as its scenario says; one made with a webhook then calls back (`completed`). */
  const finish = (p: Prediction) => {
    settle(p);
    if (p.webhook && (!p.webhookEvents || p.webhookEvents.includes('completed'))) void deliver(p, `msg_${randomBytes(12).toString('hex')}`);
  };

  const settle = (p: Prediction) => {
    ended(p);
    const file = (name: string) => `${servers.cdnUrl}/files/${name}.${asset(p.scenario)}`;
    switch (p.scenario) {
      case 'fails':
        p.status = 'failed';
        p.error = `CUDA out of memory ${LEAK}`;
        return;
      case 'canceled-upstream':
        p.status = 'canceled';
        return;
      case 'aborted':
        p.status = 'aborted';
        return;
      case 'unknown-status':
        p.status = 'exploded';
        return;
      case 'no-output':
        p.status = 'succeeded';
        p.output = null;
        return;
      case 'removed':
        p.status = 'succeeded';
        p.output = null;
        p.data_removed = true;
        return;
      case 'ok-string':
        p.status = 'succeeded';
        p.output = file(p.id);
        return;
      case 'ok-data-uri':
        p.status = 'succeeded';
        p.output = dataUri('png');
        return;
      case 'object-output':
        p.status = 'succeeded';
        p.output = { image: file(p.id), seed: 1 };
        return;
      case 'output-404':
        p.status = 'succeeded';
        p.output = [file('missing')];
        return;
      case 'output-html':
        p.status = 'succeeded';
        p.output = [file('html')];
        return;
      default: {
        p.status = 'succeeded';
        const count = typeof p.input.num_outputs === 'number' ? p.input.num_outputs : 1;
        p.output = Array.from({ length: count }, (_, i) => file(i === 0 ? p.id : `${p.id}-${i}`));
      }
    }
  };

  /** How a prediction moves on each poll: one `processing` answer, then its end. */
  const advance = (p: Prediction) => {
    if (!['starting', 'processing'].includes(p.status)) return;
    p.polls++;
    if (durationMs !== undefined && p.scenario !== 'never-finishes' && p.scenario !== 'held') {
      p.status = 'processing'; // ended by its timer
      return;
    }
    if (p.scenario === 'never-finishes' || (p.scenario === 'held' && !released)) {
      p.status = 'processing';
      return;
    }
    if (p.polls < 2) p.status = 'processing';
    else finish(p);
  };

  const view = (p: Prediction) => ({
    id: p.id,
    model: p.model,
    version: p.version,
    input: p.input,
    logs: logsOf(p),
    output: p.output,
    data_removed: p.data_removed,
    error: p.error,
    status: p.status,
    created_at: p.created_at,
    urls: {
      web: `https://replicate.com/p/${p.id}`,
      get: `${servers.url}/v1/predictions/${p.id}`,
      cancel: `${servers.url}/v1/predictions/${p.id}/cancel`,
    },
  });

  /** One `completed` delivery: signed at send time, retried on a non-2xx answer with the same webhook-id. */
  const deliver = async (p: Prediction, webhookId: string) => {
    for (let attempt = 0; attempt <= (options.webhookRetries ?? 0); attempt++) {
      const body = JSON.stringify(view(p));
      const at = new Date();
      const signature = new Webhook(webhookSecret).sign(webhookId, at, body);
      const timestamp = String(Math.floor(at.getTime() / 1000));
      const sent = await postCallback(callbacks, p.webhook as string, { 'webhook-id': webhookId, 'webhook-timestamp': timestamp, 'webhook-signature': signature }, body);
      if (sent.status >= 200 && sent.status < 300) return;
      await sleep(options.webhookRetryMs ?? 200);
    }
  };

  servers = await startFakeServers(async (req, res, body) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.headers.authorization !== `Bearer ${token}`) {
      return problem(res, 401, 'Unauthenticated', 'You did not pass a valid authentication token');
    }
    if (req.method === 'GET' && path === '/v1/webhooks/default/secret') return sendJson(res, 200, { key: webhookSecret });
    const official = OFFICIAL.exec(path);
    if (req.method === 'POST' && (official || path === '/v1/predictions')) {
      const parsed = parseJson(body);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return problem(res, 400, 'Bad request', 'body is not a JSON object');
      const request = parsed as Record<string, unknown>;
      const allowed = official ? ['input', 'stream', 'webhook', 'webhook_events_filter'] : ['version', 'input', 'stream', 'webhook', 'webhook_events_filter'];
      const unknown = Object.keys(request).filter((k) => !allowed.includes(k));
      if (unknown.length) return problem(res, 422, 'Input validation failed', `Additional property ${unknown[0]} is not allowed`);
      if (typeof request.input !== 'object' || request.input === null || Array.isArray(request.input)) {
        return problem(res, 422, 'Input validation failed', 'input is required');
      }
      if (request.webhook !== undefined && (typeof request.webhook !== 'string' || !/^https?:\/\/[^\s]+$/.test(request.webhook))) {
        return problem(res, 422, 'Input validation failed', 'webhook must be an HTTPS URL');
      }
      const events = request.webhook_events_filter;
      if (events !== undefined && (!Array.isArray(events) || events.length === 0 || !events.every((e) => ['start', 'output', 'logs', 'completed'].includes(e as string)))) {
        return problem(res, 422, 'Input validation failed', 'webhook_events_filter items must be one of start, output, logs, completed');
      }
      let scenario: ReplicateScenario = 'ok';
      let model: string;
      let version = 'hidden';
      if (official) {
        model = `${official[1]}/${official[2]}`;
        scenario = official[2] as ReplicateScenario;
      } else {
        const pinned = typeof request.version === 'string' ? VERSION.exec(request.version) : null;
        if (!pinned) return problem(res, 422, 'Invalid version', 'version must be a model version id');
        version = pinned[1];
        model = 'fake/pinned';
      }
      const prefer = req.headers.prefer;
      if (prefer !== undefined && !PREFER.test(String(prefer))) return problem(res, 422, 'Invalid header', 'Prefer must be wait or wait=n (1-60)');
      const cancelAfter = req.headers['cancel-after'];
      if (cancelAfter !== undefined) {
        const m = CANCEL_AFTER.exec(String(cancelAfter));
        const seconds = m && String(cancelAfter) !== '' ? Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0) : -1;
        if (seconds < 5) return problem(res, 422, 'Invalid header', 'Cancel-After must be a duration of at least 5 seconds');
      }
      switch (scenario) {
        case 'create-hang':
          return; // never answers
        case 'create-500':
          return void res.writeHead(500, { 'content-type': 'text/plain' }).end(LEAK);
        case 'create-html':
          return void res.writeHead(201, { 'content-type': 'text/html' }).end(`<html>${LEAK}</html>`);
        case 'create-429-long':
          return sendJson(res, 429, { title: 'Request was throttled', detail: 'Expected available in 3600 seconds.', status: 429 }, { 'retry-after': '3600' });
        case 'create-429': {
          const key = `${model}`;
          if (!seen429.has(key)) {
            seen429.add(key);
            return sendJson(res, 429, { title: 'Request was throttled', detail: 'Expected available in 1 second.', status: 429 }, { 'retry-after': '1' });
          }
          break;
        }
        default:
          break;
      }
      createCount++;
      const p: Prediction = {
        id: predictionId(),
        scenario,
        model,
        version,
        input: request.input as Record<string, unknown>,
        status: 'starting',
        output: null,
        error: null,
        polls: 0,
        created_at: new Date().toISOString(),
        data_removed: false,
        webhook: request.webhook as string | undefined,
        webhookEvents: events as string[] | undefined,
      };
      predictions.set(p.id, p);
      ordered.push(p);
      running.add(p.id);
      peakInFlight = Math.max(peakInFlight, ++inFlight);
      const runFor = durationMs ?? (p.webhook ? 50 : undefined);
      if (runFor !== undefined && p.scenario !== 'never-finishes' && p.scenario !== 'held') {
        setTimeout(() => {
          if (['starting', 'processing'].includes(p.status)) finish(p);
        }, runFor).unref();
      }
      if (scenario === 'create-no-id') {
        const { id: _id, ...rest } = view(p);
        return sendJson(res, 201, rest);
      }
      if (prefer !== undefined) {
        // Sync mode: a prediction that can finish, finishes within the wait; others answer 202 after it.
        const pending = p.scenario === 'never-finishes' || p.scenario === 'held' || p.scenario === 'poll-slow';
        if (!pending) {
          finish(p);
          return sendJson(res, 201, view(p));
        }
        const match = /=(\d+)/.exec(String(prefer));
        await sleep(Math.min(Number(match?.[1] ?? 60), 2) * 1000);
        p.status = 'processing';
        return sendJson(res, 202, view(p));
      }
      return sendJson(res, 201, view(p));
    }
    const get = /^\/v1\/predictions\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && get) {
      const p = predictions.get(decodeURIComponent(get[1]));
      if (!p) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      reads++;
      if (p.scenario === 'poll-503' || (p.scenario === 'poll-503-once' && !p.failedOnce)) {
        p.failedOnce = true;
        return void res.writeHead(503, { 'content-type': 'text/plain' }).end(LEAK);
      }
      if (p.scenario === 'poll-slow' && !p.failedOnce) {
        p.failedOnce = true;
        await sleep(slowMs);
      }
      advance(p);
      return sendJson(res, 200, view(p));
    }
    const cancel = /^\/v1\/predictions\/([^/]+)\/cancel$/.exec(path);
    if (req.method === 'POST' && cancel) {
      const p = predictions.get(decodeURIComponent(cancel[1]));
      if (!p) return problem(res, 404, 'Not found', 'The requested resource could not be found.');
      if (['starting', 'processing'].includes(p.status)) {
        p.status = 'canceled';
        ended(p);
      }
      return sendJson(res, 200, view(p));
    }
    problem(res, 404, 'Not found', 'The requested resource could not be found.');
  });

  const fake = Object.assign(servers, {
    token,
    predictions: ordered,
    release: () => {
      released = true;
    },
    creates: () => createCount,
    webhookSecret,
    rotateSecret: () => (webhookSecret = newSecret()),
    callbacks,
    reads: () => reads,
    sendWebhook: (id: string, o: { webhookId?: string; timestamp?: Date; secret?: string; body?: string; signature?: string; url?: string } = {}) => {
      const p = predictions.get(id);
      if (!p) throw new Error(`no prediction ${id}`);
      const body = o.body ?? JSON.stringify(view(p));
      const webhookId = o.webhookId ?? `msg_${randomBytes(12).toString('hex')}`;
      const at = o.timestamp ?? new Date();
      const signature = o.signature ?? new Webhook(o.secret ?? webhookSecret).sign(webhookId, at, body);
      const headers = { 'webhook-id': webhookId, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
      return postCallback(callbacks, o.url ?? (p.webhook as string), headers, body);
    },
    inFlight: () => inFlight,
    peakInFlight: () => peakInFlight,
  });
  // The secret as it is now (rotateSecret changes it).
  Object.defineProperty(fake, 'webhookSecret', { get: () => webhookSecret });
  return fake;
}
