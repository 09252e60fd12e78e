import type { EngineKind } from '../../ports/engine-kind';
import { bindingEngineKind } from '../common/binding-engine-kind';
import { BINDING_DEFAULTS, BindingDto, BindingSpec, readBinding } from '../common/binding-settings';
import { IfGiven } from '@gen/contracts';
import { HttpUrl, normalUrl } from '../common/binding-rules';
import { FAL_JWKS_URL } from './fal.callback';
import { FalEngine, FalSettings } from './fal.engine';

const SPEC: BindingSpec = {
  defaultBaseUrl: 'https://queue.fal.run',
  upstreamModel: {
    required: true,
    // owner/alias, with an optional subpath (`fal-ai/flux/schnell`).
    pattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}(\/[A-Za-z0-9][A-Za-z0-9_.-]{0,99}){1,4}$/,
    hint: 'a fal model id such as "fal-ai/flux/schnell"',
  },
  tokenEnv: 'required',
  defaults: { requestMs: BINDING_DEFAULTS.requestTimeoutMs, totalMs: BINDING_DEFAULTS.totalTimeoutMs, outputOrigins: ['https://fal.media', 'https://*.fal.media'] },
  reservedInput: [],
  callbacks: true,
};

class FalBindingDto extends BindingDto {
  /** fal's public keys for callback signatures (docs/operations/providers.md, "Callbacks"): another URL for a test double or a proxy. */
  @IfGiven()
  @HttpUrl(true)
  callbackJwksUrl?: string;
}

function parse(settings: Record<string, unknown>, where: string, problems: string[]): FalSettings | null {
  const binding = readBinding(settings, where, SPEC, problems, FalBindingDto);
  if (!binding) return null;
  const { settings: common, own } = binding;
  const callbackJwksUrl = own.callbackJwksUrl === undefined ? FAL_JWKS_URL : normalUrl(own.callbackJwksUrl, true);
  return { ...common, upstreamModel: common.upstreamModel as string, callbackJwksUrl };
}

/** fal's queue API (https://docs.fal.ai/model-endpoints/queue): `{"engine": "fal", "upstreamModel": "fal-ai/...", "tokenEnv": ...}`. */
export const falEngineKind: EngineKind = bindingEngineKind({
  kind: 'fal',
  provider: 'fal',
  parse,
  credential: (settings) => ({ env: settings.tokenEnv, header: 'Authorization', prefix: 'Key ' }),
  credentialRequired: true,
  engine: FalEngine,
});
