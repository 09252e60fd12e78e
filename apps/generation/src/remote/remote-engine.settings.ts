/**
 * Settings of one remote engine: the upstream model API that a catalogue model is bound to
 * (docs/engines.md, "Remote engines"). Parsed from configuration (MODEL_ENGINES / MODEL_ENGINES_FILE)
 * by `parseRemoteEngineSettings`, which reports every problem with the path of the bad field.
 */
export interface RemoteEngineSettings {
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
  /** Header carrying the upstream credential, already resolved (never logged, never shown). */
  auth: { header: string; value: string } | null;
  /** Connect (DNS + TCP + TLS) timeout of one HTTP call. */
  connectTimeoutMs: number;
  /** Timeout of one HTTP call (until the whole body has arrived). */
  requestTimeoutMs: number;
  /** Deadline of the whole generation: submit, polls and the output download. */
  totalTimeoutMs: number;
  /** Pause between two status polls. */
  pollIntervalMs: number;
  /** Retries of a call that failed transiently (network error, timeout of one call, 429, 5xx). */
  retries: number;
  /** Largest output accepted, in bytes. */
  maxOutputBytes: number;
  /**
   * Origins the output may be downloaded from (the upstream's own origin is always allowed). The
   * credential is only ever sent to the upstream's own origin.
   */
  outputOrigins: string[];
}

export const REMOTE_DEFAULTS = {
  submitPath: '/v1/generations',
  statusPath: '/v1/generations/{id}',
  connectTimeoutMs: 5_000,
  requestTimeoutMs: 15_000,
  totalTimeoutMs: 110_000,
  pollIntervalMs: 1_000,
  retries: 2,
  maxOutputBytes: 100 * 1024 * 1024,
} as const;

/** Environment lookup for credentials named in the configuration (`auth.valueEnv`). */
export type SecretLookup = (name: string) => string | undefined;

const KNOWN_KEYS = new Set([
  'engine',
  'baseUrl',
  'submitPath',
  'statusPath',
  'cancelPath',
  'upstreamModel',
  'auth',
  'timeouts',
  'pollIntervalMs',
  'retries',
  'maxOutputBytes',
  'outputOrigins',
]);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/**
 * Validates one remote model entry. `where` names it in messages (`MODEL_ENGINES.models["x"]`);
 * messages never contain the credential's value.
 */
export function parseRemoteEngineSettings(
  raw: Record<string, unknown>,
  where: string,
  secrets: SecretLookup,
  problems: string[],
): RemoteEngineSettings | null {
  const start = problems.length;
  for (const key of Object.keys(raw)) if (!KNOWN_KEYS.has(key)) problems.push(`${where}.${key} is not a known setting`);

  const baseUrl = readOrigin(raw.baseUrl, `${where}.baseUrl`, problems, true);
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

  const auth = readAuth(raw.auth, `${where}.auth`, secrets, problems);

  const timeouts = raw.timeouts ?? {};
  if (!isRecord(timeouts)) problems.push(`${where}.timeouts must be an object`);
  const t = isRecord(timeouts) ? timeouts : {};
  for (const key of Object.keys(t)) {
    if (!['connectMs', 'requestMs', 'totalMs'].includes(key)) problems.push(`${where}.timeouts.${key} is not a known setting`);
  }
  const int = (value: unknown, name: string, fallback: number, min: number, max: number): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max}`);
      return fallback;
    }
    return value;
  };
  const connectTimeoutMs = int(t.connectMs, `${where}.timeouts.connectMs`, REMOTE_DEFAULTS.connectTimeoutMs, 50, 60_000);
  const requestTimeoutMs = int(t.requestMs, `${where}.timeouts.requestMs`, REMOTE_DEFAULTS.requestTimeoutMs, 50, 600_000);
  const totalTimeoutMs = int(t.totalMs, `${where}.timeouts.totalMs`, REMOTE_DEFAULTS.totalTimeoutMs, 100, 3_600_000);
  const pollIntervalMs = int(raw.pollIntervalMs, `${where}.pollIntervalMs`, REMOTE_DEFAULTS.pollIntervalMs, 10, 60_000);
  const retries = int(raw.retries, `${where}.retries`, REMOTE_DEFAULTS.retries, 0, 10);
  const maxOutputBytes = int(raw.maxOutputBytes, `${where}.maxOutputBytes`, REMOTE_DEFAULTS.maxOutputBytes, 1, 2 ** 31 - 1);
  if (requestTimeoutMs > totalTimeoutMs) problems.push(`${where}.timeouts.requestMs must not exceed timeouts.totalMs`);

  const outputOrigins: string[] = [];
  if (raw.outputOrigins !== undefined) {
    if (!Array.isArray(raw.outputOrigins)) problems.push(`${where}.outputOrigins must be an array of origins`);
    else {
      raw.outputOrigins.forEach((origin, i) => {
        const parsed = readOrigin(origin, `${where}.outputOrigins[${i}]`, problems, false);
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
    connectTimeoutMs,
    requestTimeoutMs,
    totalTimeoutMs,
    pollIntervalMs,
    retries,
    maxOutputBytes,
    outputOrigins,
  };
}

function readAuth(value: unknown, where: string, secrets: SecretLookup, problems: string[]): RemoteEngineSettings['auth'] {
  if (value === undefined || value === null) return null;
  if (!isRecord(value)) {
    problems.push(`${where} must be an object with "header" and "valueEnv" (or "value")`);
    return null;
  }
  for (const key of Object.keys(value)) {
    if (!['header', 'value', 'valueEnv', 'prefix'].includes(key)) problems.push(`${where}.${key} is not a known setting`);
  }
  const header = typeof value.header === 'string' ? value.header.trim() : '';
  if (!HEADER_NAME.test(header)) problems.push(`${where}.header must be an HTTP header name`);
  const prefix = value.prefix === undefined ? '' : value.prefix;
  if (typeof prefix !== 'string') problems.push(`${where}.prefix must be a string`);
  let secret: string | undefined;
  if (typeof value.valueEnv === 'string' && value.valueEnv !== '') {
    secret = secrets(value.valueEnv);
    if (secret === undefined || secret === '') problems.push(`${where}.valueEnv names ${value.valueEnv}, which is not set`);
  } else if (typeof value.value === 'string' && value.value !== '') {
    secret = value.value;
  } else {
    problems.push(`${where} needs "valueEnv" (the environment variable holding the credential) or "value"`);
  }
  const full = `${typeof prefix === 'string' ? prefix : ''}${secret ?? ''}`;
  if (/[\r\n\0]/.test(full)) problems.push(`${where}: the credential contains a line break or NUL`);
  if (!secret || !HEADER_NAME.test(header)) return null;
  return { header, value: full };
}

function readOrigin(value: unknown, where: string, problems: string[], allowPath: boolean): string | null {
  if (typeof value !== 'string' || value.trim() === '') {
    problems.push(`${where} must be an http(s) URL`);
    return null;
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    problems.push(`${where} must be an http(s) URL`);
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    problems.push(`${where} must use http or https`);
    return null;
  }
  if (url.username || url.password) {
    problems.push(`${where} must not carry credentials (use "auth")`);
    return null;
  }
  if (url.search || url.hash) {
    problems.push(`${where} must not have a query or fragment`);
    return null;
  }
  if (!allowPath) return url.origin;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
