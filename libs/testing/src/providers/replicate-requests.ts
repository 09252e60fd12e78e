import type { IncomingMessage } from 'node:http';
import { parseJson } from './fake-provider';
import type { ReplicateScenario } from './replicate-predictions';

const VERSION = /^(?:[\w.-]+\/[\w.-]+:)?([0-9a-f]{64})$/;
const OFFICIAL = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/;
const PREFER = /^wait(=([1-9]|[1-9][0-9]|60))?$/;
const CANCEL_AFTER = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s?)?$/;
const WEBHOOK_EVENTS = ['start', 'output', 'logs', 'completed'];

/** A refused request: problem details (`{"title", "detail", "status"}`). */
export interface Problem {
  status: number;
  title: string;
  detail: string;
}

/** A create the fake accepted, and what it asks for. */
export interface CreateRequest {
  scenario: ReplicateScenario;
  model: string;
  version: string;
  input: Record<string, unknown>;
  webhook?: string;
  webhookEvents?: string[];
  /** The `Prefer` header (`wait` or `wait=n`): sync mode. */
  prefer?: string;
}

/** True for the two create routes: `POST /v1/models/{owner}/{name}/predictions` and `POST /v1/predictions`. */
export function isCreate(method: string | undefined, path: string): boolean {
  return method === 'POST' && (OFFICIAL.test(path) || path === '/v1/predictions');
}

const invalid = (detail: string): Problem => ({ status: 422, title: 'Input validation failed', detail });

/** Checks a create as Replicate's request schema and headers do; the prediction's fields, or the problem. */
export function readCreate(req: IncomingMessage, path: string, body: string): CreateRequest | Problem {
  const official = OFFICIAL.exec(path);
  const parsed = parseJson(body);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { status: 400, title: 'Bad request', detail: 'body is not a JSON object' };
  const request = parsed as Record<string, unknown>;
  const allowed = official ? ['input', 'stream', 'webhook', 'webhook_events_filter'] : ['version', 'input', 'stream', 'webhook', 'webhook_events_filter'];
  const unknown = Object.keys(request).filter((k) => !allowed.includes(k));
  if (unknown.length) return invalid(`Additional property ${unknown[0]} is not allowed`);
  if (typeof request.input !== 'object' || request.input === null || Array.isArray(request.input)) return invalid('input is required');
  if (request.webhook !== undefined && (typeof request.webhook !== 'string' || !/^https?:\/\/[^\s]+$/.test(request.webhook))) {
    return invalid('webhook must be an HTTPS URL');
  }
  const events = request.webhook_events_filter;
  if (events !== undefined && (!Array.isArray(events) || events.length === 0 || !events.every((e) => WEBHOOK_EVENTS.includes(e as string)))) {
    return invalid('webhook_events_filter items must be one of start, output, logs, completed');
  }
  let scenario: ReplicateScenario = 'ok';
  let model: string;
  let version = 'hidden';
  if (official) {
    model = `${official[1]}/${official[2]}`;
    scenario = official[2] as ReplicateScenario;
  } else {
    const pinned = typeof request.version === 'string' ? VERSION.exec(request.version) : null;
    if (!pinned) return { status: 422, title: 'Invalid version', detail: 'version must be a model version id' };
    version = pinned[1];
    model = 'fake/pinned';
  }
  const prefer = req.headers.prefer;
  if (prefer !== undefined && !PREFER.test(String(prefer))) return { status: 422, title: 'Invalid header', detail: 'Prefer must be wait or wait=n (1-60)' };
  const cancelAfter = req.headers['cancel-after'];
  if (cancelAfter !== undefined) {
    const m = CANCEL_AFTER.exec(String(cancelAfter));
    const seconds = m && String(cancelAfter) !== '' ? Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0) : -1;
    if (seconds < 5) return { status: 422, title: 'Invalid header', detail: 'Cancel-After must be a duration of at least 5 seconds' };
  }
  return {
    scenario,
    model,
    version,
    input: request.input as Record<string, unknown>,
    webhook: request.webhook as string | undefined,
    webhookEvents: events as string[] | undefined,
    prefer: prefer === undefined ? undefined : String(prefer),
  };
}
