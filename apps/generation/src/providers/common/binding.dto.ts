import { IfGiven, IntBetween, Nested, Rule } from '@gen/contracts';
import { Allow, IsOptional } from 'class-validator';
import { HttpUrl, IsPlainObject, Origins } from './binding-rules';

/**
 * The shape of the settings every provider binding shares (docs/operations/providers.md, "Models and providers"),
 * as operators write them: `{"baseUrl", "upstreamModel", "tokenEnv", "input": {...}, "timeouts": {...}, ...}`.
 * Field initialisers are the defaults that do not depend on the kind (`BindingSpec` has the others);
 * `readBinding` validates with it and turns it into `BindingSettings`.
 */

export const BINDING_DEFAULTS = {
  connectTimeoutMs: 5_000,
  requestTimeoutMs: 15_000,
  totalTimeoutMs: 110_000,
  pollIntervalMs: 1_000,
  maxPollIntervalMs: 10_000,
  retries: 2,
  maxOutputBytes: 100 * 1024 * 1024,
} as const;

export const ENV_NAME = /^[A-Z_][A-Z0-9_]{0,127}$/;
const FIELD = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const PATH_SEGMENT = /^([A-Za-z0-9_-]{1,64}|\*)$/;
export const MAX_INPUT_JSON = 16 * 1024;

const isField = (value: unknown) => typeof value === 'string' && FIELD.test(value);
const isOutputPath = (value: unknown) => {
  const segments = typeof value === 'string' ? value.split('.') : [];
  return segments.length > 0 && segments.length <= 10 && segments.every((s) => PATH_SEGMENT.test(s));
};
const inputMapProblems = (map: Record<string, unknown>) =>
  Object.entries(map)
    .filter(([ours, theirs]) => !FIELD.test(ours) || !isField(theirs))
    .map(([ours]) => `$property.${ours} must map an input name to a field name (letters, digits, _)`);

/** The name of an environment variable holding a credential (never the credential itself). */
export const EnvName = (message: string) => Rule('envName', (value) => typeof value === 'string' && ENV_NAME.test(value), message);

/** `timeouts`: `requestMs` and `totalMs` default to the kind's. */
export class TimeoutsDto {
  @IntBetween(50, 60_000)
  connectMs: number = BINDING_DEFAULTS.connectTimeoutMs;

  @IfGiven()
  @IntBetween(50, 600_000)
  requestMs?: number;

  @IfGiven()
  @IntBetween(100, 3_600_000)
  totalMs?: number;
}

/**
 * How upstream calls are made and waited for (docs/design/jobs.md, "Waiting upstream"): timeouts, polling,
 * retries, the largest output and the caps; shared with the `remote` kind.
 */
export class UpstreamCallsDto {
  @IsOptional()
  @Nested(() => TimeoutsDto)
  timeouts?: TimeoutsDto | null;

  @IntBetween(10, 60_000)
  pollIntervalMs: number = BINDING_DEFAULTS.pollIntervalMs;

  @IntBetween(0, 10)
  retries: number = BINDING_DEFAULTS.retries;

  @IntBetween(1, 1024 ** 3)
  maxOutputBytes: number = BINDING_DEFAULTS.maxOutputBytes;


  /** Default: `pollIntervalMs` or 10 s, whichever is longer. */
  @IfGiven()
  @IntBetween(10, 300_000)
  maxPollIntervalMs?: number;

  @IsOptional()
  @IntBetween(1, 1_000_000)
  maxInFlight?: number | null;

  @IsOptional()
  @IntBetween(1, 100_000)
  maxRequestsPerSecond?: number | null;
}

export class BindingDto extends UpstreamCallsDto {
  /** Default: the kind's (required of a self-hosted server). */
  @IfGiven()
  @HttpUrl(true)
  baseUrl?: string;

  /** Checked by the kind (`BindingSpec.upstreamModel`). */
  @Allow()
  upstreamModel?: unknown;

  @IfGiven()
  @EnvName('must be the name of an environment variable (A-Z, 0-9, _), not the token itself')
  tokenEnv?: string;

  @IsPlainObject("must be an object of the model's static parameters")
  @Rule('inputSize', (value) => JSON.stringify(value).length <= MAX_INPUT_JSON, `must be at most ${MAX_INPUT_JSON} characters of JSON`)
  input: Record<string, unknown> = {};

  @IsPlainObject('must be an object from the model\'s input names to the provider\'s ({"num_outputs": "num_images"})')
  @Rule('inputMap', (value) => inputMapProblems(value as Record<string, unknown>).length === 0, '', {
    message: (args) => inputMapProblems(args.value as Record<string, unknown>).join('\n'),
  })
  inputMap: Record<string, string> = {};

  @Rule('fieldName', isField, 'must be a field name (letters, digits, _)')
  promptField = 'prompt';

  @IfGiven()
  @Rule('fieldName', isField, 'must be a field name (letters, digits, _)')
  seedField?: string;

  /** Default: the kind's. */
  @IfGiven()
  @Origins(true)
  outputOrigins?: string[];

  @IfGiven()
  @Rule('outputPath', isOutputPath, 'must be a dotted path into the result, such as "images.*.url" (* is every item of a list)')
  outputPath?: string;

  @Rule('isBoolean', (value) => typeof value === 'boolean', 'must be true or false')
  callbacks = false;
}
