import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AssetName, dataUri, FakeServers, LEAK, parseJson, postCallback, sendJson, SentCallback, startFakeServers } from './fake-provider';

/**
 * A fake Cog container, from Cog's HTTP API documentation (https://github.com/replicate/cog/blob/main/docs/http.md)
 * and, where the documentation is silent, what its server (coglet) does:
 * - `POST /predictions` and the idempotent `PUT /predictions/{prediction_id}` with `{"input": {...}}`:
 *   synchronous, answered `{"id", "status": "succeeded" | "failed" | "canceled", "output", "error",
 *   "logs", "metrics"}` when the prediction ends (a failed prediction is still 200: "failure is data").
 *   `Prefer: respond-async` answers 202 `{"id", "status": "starting"}` at once.
 * - A PUT for an id that is still running starts nothing: it answers 202 with that prediction's state.
 *   A finished prediction is forgotten, so a later PUT with its id starts a new one.
 * - All slots busy (`concurrency.max`, 1 here): 409 `{"error": "At capacity...", "status": "failed"}`.
 * - A body `id` different from the URL's: 422.
 * - `POST /predictions/{prediction_id}/cancel`: 200 `{}` when it exists, 404 `{}` otherwise. A
 *   synchronous prediction whose connection closes is cancelled too.
 * - Files are returned as base64 data URLs by default, or as URLs when uploaded (`--upload-url`).
 * - `webhook` (a URL) and `webhook_events_filter` (`start`, `output`, `logs`, `completed`) in the
 *   body: when the prediction ends, the final prediction is POSTed there for `completed` (unsigned:
 *   Cog has no webhook signature).
 * The model's inputs: `prompt`, `scenario` (what happens, below) and `duration_ms` (how long it runs).
 */
export type CogScenario =
  /** Output a PNG data URL (Cog's default for a file). */
  | 'ok'
  /** Output a URL on the upload server (the CDN origin here). */
  | 'ok-url'
  /** Output a list of one data URL. */
  | 'ok-list'
  | 'ok-video'
  | 'ok-audio'
  | 'ok-3d'
  /** Output `{"image": <data URL>}`: found only with outputPath. */
  | 'object-output'
  /** The prediction fails, with a leaky error. */
  | 'fails'
  /** Runs until cancelled. */
  | 'never-finishes'
  | 'no-output'
  /** A data URL holding an HTML page. */
  | 'html-output'
  /** A data URL that is not base64. */
  | 'bad-data-uri'
  /** A rate-limiting proxy in front answers the first call 429 with `Retry-After: 1`; then as `ok`. */
  | 'proxy-429';

export interface CogPrediction {
  id: string;
  scenario: CogScenario;
  input: Record<string, unknown>;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  /** How it ended: by its own end, a cancel call, or its connection closing. */
  endedBy?: 'finished' | 'cancel' | 'disconnect';
}

export interface FakeCog extends FakeServers {
  /** Every prediction started, in order. */
  started: CogPrediction[];
  /** When set, a proxy in front of the container wants `Authorization: Bearer <token>`. */
  token: string | null;
  /** Every webhook delivery made, with our service's answer. */
  callbacks: SentCallback[];
}

const ASSET: Partial<Record<CogScenario, AssetName>> = { 'ok-video': 'mp4', 'ok-audio': 'wav', 'ok-3d': 'glb' };

export async function startFakeCog(options: { token?: string; concurrency?: number } = {}): Promise<FakeCog> {
  const token = options.token ?? null;
  /** A rate-limiting proxy in front of the container (Cog itself never answers 429): once per `scenario`. */
  const throttled = new Set<string>();
  const concurrency = options.concurrency ?? 1;
  const running = new Map<string, { prediction: CogPrediction; done: Promise<void>; end: (how: 'cancel' | 'disconnect') => void }>();
  const started: CogPrediction[] = [];
  let servers: FakeServers;
  const callbacks: SentCallback[] = [];

  const outputOf = (p: CogPrediction): unknown => {
    switch (p.scenario) {
      case 'ok-url':
        return `${servers.cdnUrl}/files/${p.id}.png`;
      case 'ok-list':
        return [dataUri('png')];
      case 'object-output':
        return { image: dataUri('png') };
      case 'no-output':
        return null;
      case 'html-output':
        return `data:image/png;base64,${Buffer.from(`<html>${LEAK}</html>`).toString('base64')}`;
      case 'bad-data-uri':
        return 'data:image/png;base64,@@not base64@@';
      default:
        return dataUri(ASSET[p.scenario] ?? 'png');
    }
  };

  const view = (p: CogPrediction, extra: Record<string, unknown> = {}) => ({ id: p.id, status: p.status, input: p.input, ...extra });

  const final = (p: CogPrediction) =>
    p.status === 'succeeded'
      ? view(p, { output: outputOf(p), logs: '', metrics: { predict_time: 0.01 } })
      : p.status === 'failed'
        ? view(p, { error: `RuntimeError: CUDA out of memory ${LEAK}`, logs: '', metrics: { predict_time: 0.01 } })
        : view(p, { logs: '', metrics: { predict_time: 0.01 } });

  const start = (id: string, input: Record<string, unknown>) => {
    const scenario = (typeof input.scenario === 'string' ? input.scenario : 'ok') as CogScenario;
    const prediction: CogPrediction = { id, scenario, input, status: 'processing' };
    started.push(prediction);
    let end!: (how: 'cancel' | 'disconnect') => void;
    const done = new Promise<void>((resolve) => {
      const duration = typeof input.duration_ms === 'number' ? input.duration_ms : 30;
      const timer = scenario === 'never-finishes' ? undefined : setTimeout(() => finish('finished'), duration);
      const finish = (how: 'finished' | 'cancel' | 'disconnect') => {
        if (prediction.endedBy) return;
        clearTimeout(timer);
        prediction.endedBy = how;
        prediction.status = how === 'finished' ? (scenario === 'fails' ? 'failed' : 'succeeded') : 'canceled';
        running.delete(id); // finished predictions are forgotten
        resolve();
      };
      end = finish;
    });
    running.set(id, { prediction, done, end });
    return running.get(id) as { prediction: CogPrediction; done: Promise<void>; end: (how: 'cancel' | 'disconnect') => void };
  };

  const predict = async (req: IncomingMessage, res: ServerResponse, id: string, body: string) => {
    const parsed = parseJson(body);
    const request = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
    if (!request || typeof request.input !== 'object' || request.input === null || Array.isArray(request.input)) {
      return sendJson(res, 422, { detail: [{ loc: ['body', 'input'], msg: 'field required', type: 'value_error.missing' }] });
    }
    if (request.id !== undefined && request.id !== id) {
      return sendJson(res, 422, { detail: [{ loc: ['body', 'id'], msg: 'prediction ID must match the ID supplied in the URL', type: 'value_error' }] });
    }
    const scenario = (request.input as Record<string, unknown>).scenario;
    if (scenario === 'proxy-429' && !throttled.has(id)) {
      throttled.add(id);
      return sendJson(res, 429, { detail: 'Too Many Requests' }, { 'retry-after': '1' });
    }
    const existing = running.get(id);
    if (existing) return sendJson(res, 202, view(existing.prediction));
    if (running.size >= concurrency) return sendJson(res, 409, { error: 'At capacity - all prediction slots busy', status: 'failed' });
    const webhook = request.webhook;
    if (webhook !== undefined && (typeof webhook !== 'string' || !/^https?:\/\/[^\s]+$/.test(webhook))) {
      return sendJson(res, 422, { detail: [{ loc: ['body', 'webhook'], msg: 'invalid or missing URL scheme', type: 'value_error.url.scheme' }] });
    }
    const events = request.webhook_events_filter;
    if (events !== undefined && (!Array.isArray(events) || !events.every((e) => ['start', 'output', 'logs', 'completed'].includes(e as string)))) {
      return sendJson(res, 422, { detail: [{ loc: ['body', 'webhook_events_filter'], msg: 'value is not a valid enumeration member', type: 'type_error.enum' }] });
    }
    const run = start(id, request.input as Record<string, unknown>);
    if (typeof webhook === 'string' && (events === undefined || (events as string[]).includes('completed'))) {
      void run.done.then(() => postCallback(callbacks, webhook, {}, JSON.stringify(final(run.prediction))));
    }
    if (req.headers.prefer === 'respond-async') return sendJson(res, 202, { id, status: 'starting' });
    // Synchronous: a closed connection cancels the prediction (coglet's guard on sync predictions).
    const onClose = () => {
      if (!res.writableEnded) run.end('disconnect');
    };
    res.on('close', onClose);
    await run.done;
    res.off('close', onClose);
    if (!res.destroyed) sendJson(res, 200, final(run.prediction));
  };

  servers = await startFakeServers(async (req, res, body) => {
    const path = (req.url ?? '').split('?')[0];
    if (token !== null && req.headers.authorization !== `Bearer ${token}`) return sendJson(res, 401, { detail: 'unauthorized' });
    if (req.method === 'GET' && path === '/health-check') return sendJson(res, 200, { status: running.size >= concurrency ? 'BUSY' : 'READY' });
    if (req.method === 'POST' && path === '/predictions') return predict(req, res, randomUUID().replace(/-/g, '').slice(0, 26), body);
    const put = /^\/predictions\/([^/]+)$/.exec(path);
    if (req.method === 'PUT' && put) return predict(req, res, decodeURIComponent(put[1]), body);
    const cancel = /^\/predictions\/([^/]+)\/cancel$/.exec(path);
    if (req.method === 'POST' && cancel) {
      const run = running.get(decodeURIComponent(cancel[1]));
      if (!run) return sendJson(res, 404, {});
      run.end('cancel');
      return sendJson(res, 200, {});
    }
    sendJson(res, 404, { detail: 'Not Found' });
  });

  return Object.assign(servers, { started, token, callbacks });
}
