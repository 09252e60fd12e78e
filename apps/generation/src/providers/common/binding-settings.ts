import { Shape, validateShape } from '@gen/contracts';
import type { EngineRequest } from '../../ports/engine';
import { isRecord } from '../../ports/engine-kind';
import { normalOrigin, normalUrl } from './binding-rules';
import { BINDING_DEFAULTS, BindingDto, TimeoutsDto, UpstreamCallsDto } from './binding.dto';

export { BINDING_DEFAULTS, BindingDto, ENV_NAME } from './binding.dto';

/**
 * The settings every provider binding shares (docs/operations/providers.md, "Models and providers"):
 * `{"engine": "<kind>", "baseUrl", "upstreamModel", "tokenEnv", "input": {...}, "timeouts": {...}, ...}`.
 * Validated without the environment (the operator CLI validates with it too; the shape is
 * `BindingDto`); the credential is only ever named, by its environment variable, and read when
 * the engine is built.
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

/** What varies between the kinds that share these settings. */
export interface BindingSpec {
  /** The default base URL of a hosted provider; null: required (a self-hosted server). */
  defaultBaseUrl: string | null;
  upstreamModel: { required: boolean; pattern: RegExp; hint: string } | 'refused';
  tokenEnv: 'required' | 'optional';
  defaults: { requestMs: number; totalMs: number; outputOrigins: readonly string[] };
  /** Fields of `input` the adapter sets itself, refused there. */
  reservedInput: readonly string[];
  /** Whether the provider can call back (`"callbacks": true` is refused where it cannot). */
  callbacks: boolean;
}

/** Names under which a credential gets pasted into a binding by mistake. */
const CREDENTIAL_KEYS = /^(token|apiKey|api_key|apiToken|api_token|key|secret|password|authorization|credentials?|bearer|headers)$/i;

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

/**
 * Validates a binding (everything but `engine`) with `shape` (BindingDto, or a kind's extension
 * of it with its own settings), the kind's `spec`, and the rules across fields; every problem names
 * `${where}.<field>`. The settings, and the kind's own (`own`) as they were given; null on a problem.
 */
export function readBinding<S extends BindingDto>(
  raw: Record<string, unknown>,
  where: string,
  spec: BindingSpec,
  problems: string[],
  shape: Shape<S> = BindingDto as Shape<S>,
): { settings: BindingSettings; own: S } | null {
  // An unknown setting beside a pasted credential is most likely its header: only the credential is named.
  const credentials = refuseInlineCredentials(raw, where, problems);
  const result = validateShape(shape, raw, { path: where, unknown: credentials ? 'strip' : 'forbid', unknownMessage });
  if (!result.ok) problems.push(...result.problems);
  const start = problems.length;
  checkKindRules(raw, where, spec, problems);
  if (!result.ok || credentials || problems.length > start) return null;
  const settings = toBindingSettings(result.value, spec);
  checkAcrossFields(settings, where, problems);
  return problems.length > start ? null : { settings, own: result.value };
}

function unknownMessage(property: string, known: readonly string[], shape: Shape<object>): string {
  return shape === TimeoutsDto ? 'is not a known setting' : `is not a setting of this engine (known: ${known.join(', ')})`;
}

/** What the kind decides: a default base URL or none, upstreamModel's form, tokenEnv, reserved input, callbacks. */
function checkKindRules(raw: Record<string, unknown>, where: string, spec: BindingSpec, problems: string[]): void {
  if (raw.baseUrl === undefined && spec.defaultBaseUrl === null) problems.push(`${where}.baseUrl must be an http(s) URL`);
  if (spec.upstreamModel === 'refused') {
    if (raw.upstreamModel !== undefined) problems.push(`${where}.upstreamModel: this engine serves one model; remove the setting`);
  } else if (raw.upstreamModel === undefined) {
    if (spec.upstreamModel.required) problems.push(`${where}.upstreamModel is required: ${spec.upstreamModel.hint}`);
  } else if (typeof raw.upstreamModel !== 'string' || !spec.upstreamModel.pattern.test(raw.upstreamModel)) {
    problems.push(`${where}.upstreamModel must be ${spec.upstreamModel.hint}`);
  }
  if (raw.tokenEnv === undefined && spec.tokenEnv === 'required') {
    problems.push(`${where}.tokenEnv is required: the name of the environment variable holding the API token`);
  }
  if (isRecord(raw.input)) {
    for (const key of spec.reservedInput) {
      if (Object.prototype.hasOwnProperty.call(raw.input, key)) problems.push(`${where}.input.${key} is set by the engine itself; remove it`);
    }
  }
  if (raw.callbacks === true && !spec.callbacks) {
    problems.push(`${where}.callbacks: this engine's provider does not call back; remove the setting (polling is how its jobs are followed)`);
  }
}

function toBindingSettings(value: BindingDto, spec: BindingSpec): BindingSettings {
  return {
    baseUrl: value.baseUrl === undefined ? (spec.defaultBaseUrl as string) : normalUrl(value.baseUrl, true),
    upstreamModel: typeof value.upstreamModel === 'string' ? value.upstreamModel : null,
    tokenEnv: value.tokenEnv ?? null,
    input: value.input,
    inputMap: value.inputMap,
    promptField: value.promptField,
    seedField: value.seedField ?? null,
    outputOrigins: value.outputOrigins === undefined ? [...spec.defaults.outputOrigins] : value.outputOrigins.map((o) => normalOrigin(o) as string),
    outputPath: value.outputPath?.split('.') ?? null,
    callbacks: value.callbacks,
    ...callSettings(value, spec.defaults),
  };
}

export type CallSettings = Pick<
  BindingSettings,
  'connectTimeoutMs' | 'requestTimeoutMs' | 'totalTimeoutMs' | 'pollIntervalMs' | 'retries' | 'maxOutputBytes' | keyof WaitSettings
>;

/** The settings of upstream calls with their defaults: the kind's call and total timeouts, `maxPollIntervalMs` at least `pollIntervalMs`. */
export function callSettings(value: UpstreamCallsDto, defaults: { requestMs: number; totalMs: number }): CallSettings {
  const timeouts = value.timeouts ?? new TimeoutsDto();
  return {
    connectTimeoutMs: timeouts.connectMs,
    requestTimeoutMs: timeouts.requestMs ?? defaults.requestMs,
    totalTimeoutMs: timeouts.totalMs ?? defaults.totalMs,
    pollIntervalMs: value.pollIntervalMs,
    retries: value.retries,
    maxOutputBytes: value.maxOutputBytes,
    maxPollIntervalMs: value.maxPollIntervalMs ?? Math.max(value.pollIntervalMs, BINDING_DEFAULTS.maxPollIntervalMs),
    maxInFlight: value.maxInFlight ?? null,
    maxRequestsPerSecond: value.maxRequestsPerSecond ?? null,
  };
}

/** The rules between settings: the call within the whole, the slowest poll not faster than the first. */
export function checkTimings(
  settings: Pick<BindingSettings, 'requestTimeoutMs' | 'totalTimeoutMs' | 'pollIntervalMs' | 'maxPollIntervalMs'>,
  where: string,
  problems: string[],
): void {
  if (settings.requestTimeoutMs > settings.totalTimeoutMs) problems.push(`${where}.timeouts.requestMs must not exceed timeouts.totalMs`);
  if (settings.maxPollIntervalMs < settings.pollIntervalMs) problems.push(`${where}.maxPollIntervalMs must not be less than pollIntervalMs`);
}

function checkAcrossFields(settings: BindingSettings, where: string, problems: string[]): void {
  for (const field of [settings.promptField, settings.seedField]) {
    if (field !== null && Object.prototype.hasOwnProperty.call(settings.input, field)) {
      problems.push(`${where}.input.${field} is set from each generation (${field === settings.promptField ? 'promptField' : 'seedField'}); remove it`);
    }
  }
  checkTimings(settings, where, problems);
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
