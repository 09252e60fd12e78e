import type { Engine } from '../../ports/engine';
import type { EngineKind } from '../../ports/engine-kind';
import { BINDING_DEFAULTS, BindingDto, BindingSpec, readBinding } from '../common/binding-settings';
import { IfGiven, IntBetween } from '@gen/contracts';
import { readCredential, unavailableEngine } from '../common/upstream-client';
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
export const replicateEngineKind: EngineKind = {
  kind: 'replicate',
  provider: 'replicate',
  validate(settings, where, problems) {
    parse(settings, where, problems);
  },
  create(modelId, settings, context): Engine {
    const name = `replicate:${modelId}`;
    const parsed = parse(settings, `models["${modelId}"].engine`, []);
    if (!parsed) throw new Error(`the binding of ${modelId} does not validate`); // validated when written: a bug
    const credential = readCredential(parsed.tokenEnv, context, 'Authorization', 'Bearer ');
    if (credential === 'missing' || credential === null) return unavailableEngine(name);
    return new ReplicateEngine(name, parsed, credential, context.allowPrivateNetworks, context.storage);
  },
};
