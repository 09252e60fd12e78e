import type { EngineKind } from '../../ports/engine-kind';
import { bindingEngineKind } from '../common/binding-engine-kind';
import { BINDING_DEFAULTS, BindingDto, BindingSpec, readBinding } from '../common/binding-settings';
import { IfGiven, IntBetween } from '@gen/contracts';
import { ReplicateEngine, ReplicateSettings } from './replicate.engine';

const SPEC: BindingSpec = {
  defaultBaseUrl: 'https://api.replicate.com',
  upstreamModel: {
    required: true,
    // owner/name (an official model, or the latest version), owner/name:<version>, or <version>.
    pattern: /^(?:[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\/[A-Za-z0-9][A-Za-z0-9_.-]{0,99}(?::[0-9a-f]{64})?|[0-9a-f]{64})$/,
    hint: '"owner/name", "owner/name:<64-hex version>" or a 64-hex version id',
  },
  tokenEnv: 'required',
  defaults: { requestMs: BINDING_DEFAULTS.requestTimeoutMs, totalMs: BINDING_DEFAULTS.totalTimeoutMs, outputOrigins: ['https://replicate.delivery', 'https://*.replicate.delivery'] },
  reservedInput: [],
  callbacks: true,
};

class ReplicateBindingDto extends BindingDto {
  /** Seconds the create call may wait for the output (`Prefer: wait`); default: no waiting. */
  @IfGiven()
  @IntBetween(1, 60)
  preferWait?: number;
}

function parse(settings: Record<string, unknown>, where: string, problems: string[]): ReplicateSettings | null {
  const binding = readBinding(settings, where, SPEC, problems, ReplicateBindingDto);
  if (!binding) return null;
  const { settings: common, own } = binding;
  const preferWait = own.preferWait ?? null;
  if (preferWait !== null && preferWait * 1000 >= common.requestTimeoutMs) {
    problems.push(`${where}.timeouts.requestMs must be longer than preferWait (${preferWait} s): the create call waits that long`);
    return null;
  }
  return { ...common, upstreamModel: common.upstreamModel as string, preferWait };
}

/** Replicate (https://replicate.com/docs/reference/http): `{"engine": "replicate", "upstreamModel": "owner/name", "tokenEnv": ...}`. */
export const replicateEngineKind: EngineKind = bindingEngineKind({
  kind: 'replicate',
  provider: 'replicate',
  parse,
  credential: (settings) => ({ env: settings.tokenEnv, header: 'Authorization', prefix: 'Bearer ' }),
  credentialRequired: true,
  engine: ReplicateEngine,
});
