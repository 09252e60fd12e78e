import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { FakeServers, LEAK, postCallback, sendJson, SentCallback, sleep, startFakeServers } from './fake-provider';
import { Prediction, PredictionStore, predictionId, predictionView, settlePrediction } from './replicate-predictions';
import { CreateRequest, isCreate, readCreate } from './replicate-requests';
import { deliverWebhook, signedHeaders } from './replicate-webhooks';

export type { ReplicateScenario } from './replicate-predictions';

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
  const store = new PredictionStore();
  const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;
  let webhookSecret = newSecret();
  const callbacks: SentCallback[] = [];
  let reads = 0;
  const seen429 = new Set<string>();
  let released = false;
  let createCount = 0;
  let servers: FakeServers;

  const problem = (res: ServerResponse, status: number, title: string, detail: string) =>
    sendJson(res, status, { title, detail, status }, { 'content-type': 'application/problem+json' });
  const notFound = (res: ServerResponse) => problem(res, 404, 'Not found', 'The requested resource could not be found.');
  const view = (p: Prediction) => predictionView(p, servers.url);

  /** The prediction ends as its scenario says; one made with a webhook then calls back (`completed`). */
  const finish = (p: Prediction) => {
    store.ended(p);
    settlePrediction(p, servers.cdnUrl);
    if (p.webhook && (!p.webhookEvents || p.webhookEvents.includes('completed'))) {
      const current = () => ({ body: JSON.stringify(view(p)), secret: webhookSecret });
      void deliverWebhook(callbacks, p.webhook, `msg_${randomBytes(12).toString('hex')}`, current, { retries: options.webhookRetries, retryMs: options.webhookRetryMs });
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

  /** The scenarios whose create fails; true when it has answered. */
  const createFails = (res: ServerResponse, { scenario, model }: CreateRequest): boolean => {
    switch (scenario) {
      case 'create-hang':
        return true; // never answers
      case 'create-500':
        res.writeHead(500, { 'content-type': 'text/plain' }).end(LEAK);
        return true;
      case 'create-html':
        res.writeHead(201, { 'content-type': 'text/html' }).end(`<html>${LEAK}</html>`);
        return true;
      case 'create-429-long':
        sendJson(res, 429, { title: 'Request was throttled', detail: 'Expected available in 3600 seconds.', status: 429 }, { 'retry-after': '3600' });
        return true;
      case 'create-429':
        if (seen429.has(model)) return false;
        seen429.add(model);
        sendJson(res, 429, { title: 'Request was throttled', detail: 'Expected available in 1 second.', status: 429 }, { 'retry-after': '1' });
        return true;
      default:
        return false;
    }
  };

  const create = async (res: ServerResponse, request: CreateRequest) => {
    if (createFails(res, request)) return;
    createCount++;
    const { scenario, model, version, input, webhook, webhookEvents, prefer } = request;
    const p: Prediction = {
      id: predictionId(),
      scenario,
      model,
      version,
      input,
      status: 'starting',
      output: null,
      error: null,
      polls: 0,
      created_at: new Date().toISOString(),
      data_removed: false,
      webhook,
      webhookEvents,
    };
    store.add(p);
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
      const match = /=(\d+)/.exec(prefer);
      await sleep(Math.min(Number(match?.[1] ?? 60), 2) * 1000);
      p.status = 'processing';
      return sendJson(res, 202, view(p));
    }
    return sendJson(res, 201, view(p));
  };

  const read = async (res: ServerResponse, p: Prediction) => {
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
  };

  servers = await startFakeServers(async (req, res, body) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.headers.authorization !== `Bearer ${token}`) {
      return problem(res, 401, 'Unauthenticated', 'You did not pass a valid authentication token');
    }
    if (req.method === 'GET' && path === '/v1/webhooks/default/secret') return sendJson(res, 200, { key: webhookSecret });
    if (isCreate(req.method, path)) {
      const request = readCreate(req, path, body);
      if ('title' in request) return problem(res, request.status, request.title, request.detail);
      return create(res, request);
    }
    const get = /^\/v1\/predictions\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && get) {
      const p = store.get(decodeURIComponent(get[1]));
      return p ? read(res, p) : notFound(res);
    }
    const cancel = /^\/v1\/predictions\/([^/]+)\/cancel$/.exec(path);
    if (req.method === 'POST' && cancel) {
      const p = store.get(decodeURIComponent(cancel[1]));
      if (!p) return notFound(res);
      if (['starting', 'processing'].includes(p.status)) {
        p.status = 'canceled';
        store.ended(p);
      }
      return sendJson(res, 200, view(p));
    }
    notFound(res);
  });

  const fake = Object.assign(servers, {
    token,
    predictions: store.ordered,
    release: () => {
      released = true;
    },
    creates: () => createCount,
    webhookSecret,
    rotateSecret: () => (webhookSecret = newSecret()),
    callbacks,
    reads: () => reads,
    sendWebhook: (id: string, o: { webhookId?: string; timestamp?: Date; secret?: string; body?: string; signature?: string; url?: string } = {}) => {
      const p = store.get(id);
      if (!p) throw new Error(`no prediction ${id}`);
      const body = o.body ?? JSON.stringify(view(p));
      const webhookId = o.webhookId ?? `msg_${randomBytes(12).toString('hex')}`;
      const headers = signedHeaders(o.secret ?? webhookSecret, webhookId, o.timestamp ?? new Date(), body, o.signature);
      return postCallback(callbacks, o.url ?? (p.webhook as string), headers, body);
    },
    inFlight: () => store.inFlight,
    peakInFlight: () => store.peakInFlight,
  });
  // The secret as it is now (rotateSecret changes it).
  Object.defineProperty(fake, 'webhookSecret', { get: () => webhookSecret });
  return fake;
}
