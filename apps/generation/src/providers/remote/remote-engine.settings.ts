import { isRecord } from '../provider-kind';
import { BINDING_DEFAULTS, ENV_NAME, readInt, readUrl, readWaitSettings, WAIT_KEYS, WaitSettings } from '../shared/binding-settings';

/**
 * Settings of a model bound to our own generic protocol (docs/operations/providers.md, "remote"):
 * `{"engine": "remote", "baseUrl", "submitPath"?, "statusPath"?, "cancelPath"?, "upstreamModel"?,
 * "auth"?: {"header", "valueEnv", "prefix"?}, "params"?, "timeouts"?, ...}`. Parsed without the
 * environment: the credential is only named (`auth.valueEnv`) and read when the engine is built.
 */
export interface RemoteEngineSettings extends WaitSettings {
  /** Base URL of the upstream API, without a trailing slash (`https://api.example.com`). */
  baseUrl: string;
  /** Path of the submit call, appended to baseUrl. */
  submitPath: string;
  /** Path of the status call; `{id}` is replaced by the upstream's job id. */
  statusPath: string;
  /** Optional path of a best-effort cancel call (POST) sent when we give up on a job. */
  cancelPath: string | null;
  /** Model name sent upstream (defaults to our model id). */
  upstreamModel: string | null;
  /** The header carrying the credential, and the environment variable holding it. */
  auth: { header: string; valueEnv: string; prefix: string } | null;
  /** Static parameters sent as `params` with every generation (size, steps...). */
  params: Record<string, unknown>;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  totalTimeoutMs: number;
  pollIntervalMs: number;
  retries: number;
  maxOutputBytes: number;
  /** Origins the output may be downloaded from besides the upstream's own (no credential sent there). */
  outputOrigins: string[];
}

export const REMOTE_DEFAULTS = {
  submitPath: '/v1/generations',
  statusPath: '/v1/generations/{id}',
  ...BINDING_DEFAULTS,
  maxInFlight: null,
  maxRequestsPerSecond: null,
} as const;

const KNOWN_KEYS = new Set([
  'baseUrl',
  'submitPath',
  'statusPath',
  'cancelPath',
  'upstreamModel',
  'auth',
  'params',
  'timeouts',
  'pollIntervalMs',
  'retries',
  'maxOutputBytes',
  'outputOrigins',
  ...WAIT_KEYS,
]);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** Validates a remote binding (everything but `engine`); every problem names `${where}.<field>`. */
export function parseRemoteEngineSettings(raw: Record<string, unknown>, where: string, problems: string[]): RemoteEngineSettings | null {
  const start = problems.length;
  for (const key of Object.keys(raw)) if (!KNOWN_KEYS.has(key)) problems.push(`${where}.${key} is not a known setting`);

  const baseUrl = readUrl(raw.baseUrl, `${where}.baseUrl`, problems, true);
  const path = (key: string, fallback: string | null): string | null => {
    const value = raw[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== 'string' || !value.startsWith('/')) {
      problems.push(`${where}.${key} must be a path starting with "/"`);
      return fallback;
    }
    return value;
  };
  const submitPath = path('submitPath', REMOTE_DEFAULTS.submitPath) as string;
  const statusPath = path('statusPath', REMOTE_DEFAULTS.statusPath) as string;
  const cancelPath = path('cancelPath', null);
  if (!statusPath.includes('{id}')) problems.push(`${where}.statusPath must contain "{id}"`);
  if (cancelPath !== null && !cancelPath.includes('{id}')) problems.push(`${where}.cancelPath must contain "{id}"`);

  let upstreamModel: string | null = null;
  if (raw.upstreamModel !== undefined) {
    if (typeof raw.upstreamModel === 'string' && raw.upstreamModel.trim() !== '') upstreamModel = raw.upstreamModel.trim();
    else problems.push(`${where}.upstreamModel must be a non-empty string`);
  }

  const auth = readAuth(raw.auth, `${where}.auth`, problems);
  let params: Record<string, unknown> = {};
  if (raw.params !== undefined) {
    if (isRecord(raw.params)) params = raw.params;
    else problems.push(`${where}.params must be an object of static parameters`);
  }

  const timeouts = raw.timeouts ?? {};
  if (!isRecord(timeouts)) problems.push(`${where}.timeouts must be an object`);
  const t = isRecord(timeouts) ? timeouts : {};
  for (const key of Object.keys(t)) {
    if (!['connectMs', 'requestMs', 'totalMs'].includes(key)) problems.push(`${where}.timeouts.${key} is not a known setting`);
  }
  const connectTimeoutMs = readInt(t.connectMs, `${where}.timeouts.connectMs`, REMOTE_DEFAULTS.connectTimeoutMs, 50, 60_000, problems);
  const requestTimeoutMs = readInt(t.requestMs, `${where}.timeouts.requestMs`, REMOTE_DEFAULTS.requestTimeoutMs, 50, 600_000, problems);
  const totalTimeoutMs = readInt(t.totalMs, `${where}.timeouts.totalMs`, REMOTE_DEFAULTS.totalTimeoutMs, 100, 3_600_000, problems);
  const pollIntervalMs = readInt(raw.pollIntervalMs, `${where}.pollIntervalMs`, REMOTE_DEFAULTS.pollIntervalMs, 10, 60_000, problems);
  const retries = readInt(raw.retries, `${where}.retries`, REMOTE_DEFAULTS.retries, 0, 10, problems);
  const maxOutputBytes = readInt(raw.maxOutputBytes, `${where}.maxOutputBytes`, REMOTE_DEFAULTS.maxOutputBytes, 1, 1024 ** 3, problems);
  if (requestTimeoutMs > totalTimeoutMs) problems.push(`${where}.timeouts.requestMs must not exceed timeouts.totalMs`);
  const wait = readWaitSettings(raw, where, pollIntervalMs, problems);

  const outputOrigins: string[] = [];
  if (raw.outputOrigins !== undefined) {
    if (!Array.isArray(raw.outputOrigins)) problems.push(`${where}.outputOrigins must be an array of origins`);
    else {
      raw.outputOrigins.forEach((origin, i) => {
        const parsed = readUrl(origin, `${where}.outputOrigins[${i}]`, problems, false);
        if (parsed) outputOrigins.push(parsed);
      });
    }
  }

  if (problems.length > start || !baseUrl) return null;
  return {
    baseUrl,
    submitPath,
    statusPath,
    cancelPath,
    upstreamModel,
    auth,
    params,
    connectTimeoutMs,
    requestTimeoutMs,
    totalTimeoutMs,
    pollIntervalMs,
    retries,
    maxOutputBytes,
    outputOrigins,
    ...wait,
  };
}

function readAuth(value: unknown, where: string, problems: string[]): RemoteEngineSettings['auth'] {
  if (value === undefined || value === null) return null;
  if (!isRecord(value)) {
    problems.push(`${where} must be an object with "header" and "valueEnv"`);
    return null;
  }
  if (value.value !== undefined) {
    problems.push(`${where}.value: a credential is never stored in the catalogue; name its environment variable in auth.valueEnv`);
    return null;
  }
  for (const key of Object.keys(value)) {
    if (!['header', 'valueEnv', 'prefix'].includes(key)) problems.push(`${where}.${key} is not a known setting`);
  }
  const header = typeof value.header === 'string' ? value.header.trim() : '';
  if (!HEADER_NAME.test(header)) problems.push(`${where}.header must be an HTTP header name`);
  const prefix = value.prefix === undefined ? '' : value.prefix;
  if (typeof prefix !== 'string' || /[\r\n\0]/.test(prefix)) problems.push(`${where}.prefix must be a string on one line`);
  const valueEnv = value.valueEnv;
  if (typeof valueEnv !== 'string' || !ENV_NAME.test(valueEnv)) {
    problems.push(`${where}.valueEnv must name the environment variable holding the credential (A-Z, 0-9, _)`);
    return null;
  }
  if (!HEADER_NAME.test(header) || typeof prefix !== 'string') return null;
  return { header, valueEnv, prefix };
}
