import { validateShape } from '@gen/contracts';
import { normalUrl } from '../common/binding-rules';
import { BINDING_DEFAULTS, callSettings, checkTimings, WaitSettings } from '../common/binding-settings';
import { RemoteBindingDto } from './remote-binding.dto';

/**
 * Settings of a model bound to our own generic protocol (docs/operations/providers.md, "remote"):
 * `{"engine": "remote", "baseUrl", "submitPath"?, "statusPath"?, "cancelPath"?, "upstreamModel"?,
 * "auth"?: {"header", "valueEnv", "prefix"?}, "params"?, "timeouts"?, ...}`. Validated without the
 * environment (`RemoteBindingDto`): the credential is only named (`auth.valueEnv`) and read when the engine is built.
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

/** Validates a remote binding (everything but `engine`); every problem names `${where}.<field>`. */
export function parseRemoteEngineSettings(raw: Record<string, unknown>, where: string, problems: string[]): RemoteEngineSettings | null {
  const result = validateShape(RemoteBindingDto, raw, { path: where, unknown: 'forbid', unknownMessage: () => 'is not a known setting' });
  if (!result.ok) {
    problems.push(...result.problems);
    return null;
  }
  const value = result.value;
  const settings: RemoteEngineSettings = {
    baseUrl: normalUrl(value.baseUrl, true),
    submitPath: value.submitPath ?? REMOTE_DEFAULTS.submitPath,
    statusPath: value.statusPath ?? REMOTE_DEFAULTS.statusPath,
    cancelPath: value.cancelPath ?? null,
    upstreamModel: value.upstreamModel?.trim() ?? null,
    auth: value.auth ? { header: value.auth.header.trim(), valueEnv: value.auth.valueEnv, prefix: value.auth.prefix } : null,
    params: value.params ?? {},
    outputOrigins: (value.outputOrigins ?? []).map((origin) => normalUrl(origin, false)),
    ...callSettings(value, { requestMs: REMOTE_DEFAULTS.requestTimeoutMs, totalMs: REMOTE_DEFAULTS.totalTimeoutMs }),
  };
  const start = problems.length;
  checkTimings(settings, where, problems);
  return problems.length > start ? null : settings;
}
