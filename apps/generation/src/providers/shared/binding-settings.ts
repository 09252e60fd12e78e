import type { EngineRequest } from '../../engines/engine';
import { isRecord } from '../provider-kind';

/**
 * The settings every provider binding shares (docs/operations/providers.md, "Models and providers"):
 * `{"engine": "<kind>", "baseUrl", "upstreamModel", "tokenEnv", "input": {...}, "timeouts": {...}, ...}`.
 * Parsed without the environment (the operator CLI validates with it too); the credential is only
 * ever named, by its environment variable, and read when the engine is built.
 */
export interface BindingSettings {
  /** The API's base URL, without a trailing slash (`https://api.replicate.com`). */
  baseUrl: string;
  /** The provider's name of the model (`black-forest-labs/flux-schnell`, `fal-ai/flux/schnell`, `gpt-image-1`). */
  upstreamModel: string | null;
  /** The environment variable holding the credential (a Kubernetes Secret), or null for none. */
  tokenEnv: string | null;
  /** Static parameters sent with every generation (`{"aspect_ratio": "1:1"}`); the prompt is added. */
  input: Record<string, unknown>;
  /**
   * The customer's input names the provider calls otherwise (`{"num_outputs": "num_images"}`, ours to
   * theirs); names not listed go as they are.
   */
  inputMap: Record<string, string>;
  /** The input field the prompt goes into (default `prompt`). */
  promptField: string;
  /** The input field our job's deterministic seed goes into, or null to send none. */
  seedField: string | null;
  /** DNS + TCP + TLS of one call. */
  connectTimeoutMs: number;
  /** One call, until its whole body arrived. */
  requestTimeoutMs: number;
  /** The whole generation: submit, polls, download. */
  totalTimeoutMs: number;
  pollIntervalMs: number;
  /** Extra tries of a call that failed transiently (only calls that cannot have started twice). */
  retries: number;
  maxOutputBytes: number;
  /** Origins outputs may come from besides the API's own (`https://*.cdn.example` for subdomains). */
  outputOrigins: string[];
  /** Where the output URLs are in the result (`images.*.url`: `*` is every item of a list), when not where the adapter looks. */
  outputPath: string[] | null;
  /**
   * Whether submits ask the provider to call back when the upstream job ends (`"callbacks": true`;
   * docs/operations/providers.md, "Callbacks"): the job is then checked at once instead of at its next poll.
   */
  callbacks: boolean;
  /** The slowest cadence of a parked job's checks (they start at `pollIntervalMs` and slow down to this). */
  maxPollIntervalMs: number;
  /** At most this many upstream jobs of this binding at once, over every replica (the provider account's concurrency); null: no cap. */
  maxInFlight: number | null;
  /** At most this many calls to the provider per second for this binding, over every replica; null: no cap. */
  maxRequestsPerSecond: number | null;
}

/** The settings of a binding's upstream wait (docs/design/jobs.md, "Waiting upstream"), shared with the `remote` kind. */
export type WaitSettings = Pick<BindingSettings, 'maxPollIntervalMs' | 'maxInFlight' | 'maxRequestsPerSecond'>;
export const WAIT_KEYS = ['maxPollIntervalMs', 'maxInFlight', 'maxRequestsPerSecond'] as const;

/** `maxPollIntervalMs` (at least `pollIntervalMs`), `maxInFlight` and `maxRequestsPerSecond`. */
export function readWaitSettings(raw: Record<string, unknown>, where: string, pollIntervalMs: number, problems: string[]): WaitSettings {
  const maxPollIntervalMs = readInt(raw.maxPollIntervalMs, `${where}.maxPollIntervalMs`, Math.max(pollIntervalMs, BINDING_DEFAULTS.maxPollIntervalMs), 10, 300_000, problems);
  if (maxPollIntervalMs < pollIntervalMs) problems.push(`${where}.maxPollIntervalMs must not be less than pollIntervalMs`);
  const cap = (key: 'maxInFlight' | 'maxRequestsPerSecond', max: number) =>
    raw[key] === undefined || raw[key] === null ? null : readInt(raw[key], `${where}.${key}`, 1, 1, max, problems);
  return { maxPollIntervalMs, maxInFlight: cap('maxInFlight', 1_000_000), maxRequestsPerSecond: cap('maxRequestsPerSecond', 100_000) };
}

export interface BindingSpec {
  /** The default base URL of a hosted provider; null: required (a self-hosted server). */
  defaultBaseUrl: string | null;
  upstreamModel: { required: boolean; pattern: RegExp; hint: string } | 'refused';
  tokenEnv: 'required' | 'optional';
  defaults: { requestMs: number; totalMs: number; outputOrigins: readonly string[] };
  /** Fields of `input` the adapter sets itself, refused there. */
  reservedInput: readonly string[];
  /** The kind's own settings, validated by the kind. */
  extraKeys: readonly string[];
  /** Whether the provider can call back (`"callbacks": true` is refused where it cannot). */
  callbacks: boolean;
}

export const BINDING_DEFAULTS = {
  connectTimeoutMs: 5_000,
  requestTimeoutMs: 15_000,
  totalTimeoutMs: 110_000,
  pollIntervalMs: 1_000,
  maxPollIntervalMs: 10_000,
  retries: 2,
  maxOutputBytes: 100 * 1024 * 1024,
} as const;

const COMMON_KEYS = [
  'baseUrl',
  'upstreamModel',
  'tokenEnv',
  'input',
  'inputMap',
  'promptField',
  'seedField',
  'timeouts',
  'pollIntervalMs',
  'retries',
  'maxOutputBytes',
  'outputOrigins',
  'outputPath',
  'callbacks',
  ...WAIT_KEYS,
];
/** Names under which a credential gets pasted into a binding by mistake. */
const CREDENTIAL_KEYS = /^(token|apiKey|api_key|apiToken|api_token|key|secret|password|authorization|credentials?|bearer|headers)$/i;
export const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;
const FIELD = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const PATH_SEGMENT = /^([A-Za-z0-9_-]{1,64}|\*)$/;
const MAX_INPUT_JSON = 16 * 1024;

/** Refuses a credential written into the binding itself; true when one was found. */
export function refuseInlineCredentials(raw: Record<string, unknown>, where: string, problems: string[]): boolean {
  let found = false;
  for (const key of Object.keys(raw)) {
    if (CREDENTIAL_KEYS.test(key)) {
      problems.push(`${where}.${key}: a credential is never stored in the catalogue; name the environment variable holding it in tokenEnv`);
      found = true;
    }
  }
  return found;
}

export function readBinding(raw: Record<string, unknown>, where: string, spec: BindingSpec, problems: string[]): BindingSettings | null {
  const start = problems.length;
  const known = new Set([...COMMON_KEYS, ...spec.extraKeys]);
  if (!refuseInlineCredentials(raw, where, problems)) {
    for (const key of Object.keys(raw)) if (!known.has(key)) problems.push(`${where}.${key} is not a setting of this engine (known: ${[...known].join(', ')})`);
  }

  const baseUrl =
    raw.baseUrl === undefined && spec.defaultBaseUrl !== null ? spec.defaultBaseUrl : readUrl(raw.baseUrl, `${where}.baseUrl`, problems, true);

  let upstreamModel: string | null = null;
  if (spec.upstreamModel === 'refused') {
    if (raw.upstreamModel !== undefined) problems.push(`${where}.upstreamModel: this engine serves one model; remove the setting`);
  } else if (raw.upstreamModel === undefined) {
    if (spec.upstreamModel.required) problems.push(`${where}.upstreamModel is required: ${spec.upstreamModel.hint}`);
  } else if (typeof raw.upstreamModel === 'string' && spec.upstreamModel.pattern.test(raw.upstreamModel)) {
    upstreamModel = raw.upstreamModel;
  } else {
    problems.push(`${where}.upstreamModel must be ${spec.upstreamModel.hint}`);
  }

  let tokenEnv: string | null = null;
  if (raw.tokenEnv === undefined) {
    if (spec.tokenEnv === 'required') problems.push(`${where}.tokenEnv is required: the name of the environment variable holding the API token`);
  } else if (typeof raw.tokenEnv === 'string' && ENV_NAME.test(raw.tokenEnv)) {
    tokenEnv = raw.tokenEnv;
  } else {
    problems.push(`${where}.tokenEnv must be the name of an environment variable (A-Z, 0-9, _), not the token itself`);
  }

  const input = readInput(raw.input, `${where}.input`, spec.reservedInput, problems);
  const inputMap = readInputMap(raw.inputMap, `${where}.inputMap`, problems);
  const promptField = readField(raw.promptField, `${where}.promptField`, 'prompt', problems) ?? 'prompt';
  const seedField = readField(raw.seedField, `${where}.seedField`, null, problems);
  for (const field of [promptField, seedField]) {
    if (field !== null && Object.prototype.hasOwnProperty.call(input, field)) {
      problems.push(`${where}.input.${field} is set from each generation (${field === promptField ? 'promptField' : 'seedField'}); remove it`);
    }
  }

  const timeouts = raw.timeouts ?? {};
  if (!isRecord(timeouts)) problems.push(`${where}.timeouts must be an object`);
  const t = isRecord(timeouts) ? timeouts : {};
  for (const key of Object.keys(t)) {
    if (!['connectMs', 'requestMs', 'totalMs'].includes(key)) problems.push(`${where}.timeouts.${key} is not a known setting`);
  }
  const connectTimeoutMs = readInt(t.connectMs, `${where}.timeouts.connectMs`, BINDING_DEFAULTS.connectTimeoutMs, 50, 60_000, problems);
  const requestTimeoutMs = readInt(t.requestMs, `${where}.timeouts.requestMs`, spec.defaults.requestMs, 50, 600_000, problems);
  const totalTimeoutMs = readInt(t.totalMs, `${where}.timeouts.totalMs`, spec.defaults.totalMs, 100, 3_600_000, problems);
  if (requestTimeoutMs > totalTimeoutMs) problems.push(`${where}.timeouts.requestMs must not exceed timeouts.totalMs`);
  const pollIntervalMs = readInt(raw.pollIntervalMs, `${where}.pollIntervalMs`, BINDING_DEFAULTS.pollIntervalMs, 10, 60_000, problems);
  const retries = readInt(raw.retries, `${where}.retries`, BINDING_DEFAULTS.retries, 0, 10, problems);
  const maxOutputBytes = readInt(raw.maxOutputBytes, `${where}.maxOutputBytes`, BINDING_DEFAULTS.maxOutputBytes, 1, 1024 ** 3, problems);
  const outputOrigins = raw.outputOrigins === undefined ? [...spec.defaults.outputOrigins] : readOrigins(raw.outputOrigins, `${where}.outputOrigins`, problems);
  const outputPath = readOutputPath(raw.outputPath, `${where}.outputPath`, problems);
  const callbacks = readCallbacks(raw.callbacks, `${where}.callbacks`, spec.callbacks, problems);
  const wait = readWaitSettings(raw, where, pollIntervalMs, problems);

  if (problems.length > start || baseUrl === null) return null;
  return {
    baseUrl,
    upstreamModel,
    tokenEnv,
    input,
    inputMap,
    promptField,
    seedField,
    connectTimeoutMs,
    requestTimeoutMs,
    totalTimeoutMs,
    pollIntervalMs,
    retries,
    maxOutputBytes,
    outputOrigins,
    outputPath,
    callbacks,
    ...wait,
  };
}

/**
 * The input of one generation as the provider takes it: the binding's static parameters, our
 * deterministic seed when asked for, then the customer's input as applied (validated against the
 * model's schema, so only declared fields; renamed by `inputMap`), and the prompt. A customer's `seed` therefore wins over
 * ours, and nothing overrides the prompt.
 */
export function generationInput(settings: BindingSettings, request: Pick<EngineRequest, 'prompt' | 'seed' | 'input'>): Record<string, unknown> {
  const input: Record<string, unknown> = { ...settings.input };
  if (settings.seedField) input[settings.seedField] = request.seed;
  for (const [name, value] of Object.entries(request.input)) input[settings.inputMap[name] ?? name] = value;
  input[settings.promptField] = request.prompt;
  return input;
}

export function readInt(value: unknown, name: string, fallback: number, min: number, max: number, problems: string[]): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    problems.push(`${name} must be an integer between ${min} and ${max}`);
    return fallback;
  }
  return value;
}

/**
 * An http(s) URL without credentials, query or fragment: with `allowPath` the base URL (origin and
 * path, no trailing slash), else its origin.
 */
export function readUrl(value: unknown, where: string, problems: string[], allowPath: boolean): string | null {
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
    problems.push(`${where} must not carry credentials (name them in tokenEnv)`);
    return null;
  }
  if (url.search || url.hash) {
    problems.push(`${where} must not have a query or fragment`);
    return null;
  }
  if (!allowPath) {
    if (url.pathname !== '/') problems.push(`${where} must be an origin (scheme, host, port), without a path`);
    return url.origin;
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Origins, or `scheme://*.domain[:port]` for every subdomain of `domain`. */
function readOrigins(value: unknown, where: string, problems: string[]): string[] {
  if (!Array.isArray(value)) {
    problems.push(`${where} must be an array of origins`);
    return [];
  }
  const origins: string[] = [];
  value.forEach((entry, i) => {
    const wildcard = typeof entry === 'string' ? /^(https?:\/\/)\*\.([a-z0-9-]+(\.[a-z0-9-]+)+)(:\d{1,5})?$/i.exec(entry.trim()) : null;
    if (wildcard) origins.push(`${wildcard[1].toLowerCase()}*.${wildcard[2].toLowerCase()}${wildcard[4] ?? ''}`);
    else {
      const origin = readUrl(entry, `${where}[${i}]`, problems, false);
      if (origin) origins.push(origin);
    }
  });
  return origins;
}

function readInput(value: unknown, where: string, reserved: readonly string[], problems: string[]): Record<string, unknown> {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    problems.push(`${where} must be an object of the model's static parameters`);
    return {};
  }
  for (const key of reserved) {
    if (Object.prototype.hasOwnProperty.call(value, key)) problems.push(`${where}.${key} is set by the engine itself; remove it`);
  }
  const json = JSON.stringify(value);
  if (json.length > MAX_INPUT_JSON) problems.push(`${where} must be at most ${MAX_INPUT_JSON} characters of JSON`);
  return value;
}

/** `{"<our input>": "<provider's field>"}`, both field names. */
function readInputMap(value: unknown, where: string, problems: string[]): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value)) {
    problems.push(`${where} must be an object from the model's input names to the provider's ({"num_outputs": "num_images"})`);
    return {};
  }
  const map: Record<string, string> = {};
  for (const [ours, theirs] of Object.entries(value)) {
    if (!FIELD.test(ours) || typeof theirs !== 'string' || !FIELD.test(theirs)) problems.push(`${where}.${ours} must map an input name to a field name (letters, digits, _)`);
    else map[ours] = theirs;
  }
  return map;
}

function readField(value: unknown, where: string, fallback: string | null, problems: string[]): string | null {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && FIELD.test(value)) return value;
  problems.push(`${where} must be a field name (letters, digits, _)`);
  return fallback;
}

function readCallbacks(value: unknown, where: string, supported: boolean, problems: string[]): boolean {
  if (value === undefined || value === false) return false;
  if (value !== true) {
    problems.push(`${where} must be true or false`);
    return false;
  }
  if (!supported) problems.push(`${where}: this engine's provider does not call back; remove the setting (polling is how its jobs are followed)`);
  return supported;
}

function readOutputPath(value: unknown, where: string, problems: string[]): string[] | null {
  if (value === undefined) return null;
  const segments = typeof value === 'string' ? value.split('.') : [];
  if (segments.length === 0 || segments.length > 10 || !segments.every((s) => PATH_SEGMENT.test(s))) {
    problems.push(`${where} must be a dotted path into the result, such as "images.*.url" (* is every item of a list)`);
    return null;
  }
  return segments;
}

/**
 * The strings at a dotted path (`images.*.url`: `*` takes every item of a list), in order; a list
 * found at the end gives its strings. Empty when nothing is there.
 */
export function stringsAt(root: unknown, path: readonly string[]): string[] {
  let values: unknown[] = [root];
  for (const segment of path) {
    values = values.flatMap((value) => {
      if (segment === '*') return Array.isArray(value) ? value : [];
      if (Array.isArray(value) && /^\d+$/.test(segment)) return [value[Number(segment)]];
      if (isRecord(value)) return [value[segment]];
      return [];
    });
  }
  return values.flatMap((value) => (Array.isArray(value) ? value : [value])).filter((v): v is string => typeof v === 'string' && v !== '');
}

/** The value at a dotted path (`images.0.url`); undefined when any step is missing. */
export function valueAt(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const segment of path) {
    if (Array.isArray(value) && /^\d+$/.test(segment)) value = value[Number(segment)];
    else if (isRecord(value)) value = value[segment];
    else return undefined;
  }
  return value;
}
