import type { EngineKind } from '../../ports/engine-kind';
import { bindingEngineKind } from '../common/binding-engine-kind';
import { BINDING_DEFAULTS, BindingSpec, readBinding } from '../common/binding-settings';
import { OpenAiImagesEngine, OpenAiImagesSettings } from './openai-images.engine';

const SPEC: BindingSpec = {
  defaultBaseUrl: 'https://api.openai.com',
  upstreamModel: { required: true, pattern: /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/, hint: 'the provider\'s model name, such as "gpt-image-1"' },
  // api.openai.com needs one; a compatible server on the cluster network may not.
  tokenEnv: 'optional',
  // Synchronous: the one call is the whole generation, so it may use nearly all of it.
  defaults: { requestMs: 100_000, totalMs: BINDING_DEFAULTS.totalTimeoutMs, outputOrigins: [] },
  reservedInput: ['model', 'n'],
  callbacks: false,
};

function parse(settings: Record<string, unknown>, where: string, problems: string[]): OpenAiImagesSettings | null {
  const binding = readBinding(settings, where, SPEC, problems);
  return binding && { ...binding.settings, upstreamModel: binding.settings.upstreamModel as string };
}

/** The OpenAI Images API and compatible servers: `{"engine": "openai-images", "upstreamModel": "gpt-image-1", "tokenEnv": ...}`. */
export const openAiImagesEngineKind: EngineKind = bindingEngineKind({
  kind: 'openai-images',
  provider: 'openai',
  parse,
  credential: (settings) => ({ env: settings.tokenEnv, header: 'Authorization', prefix: 'Bearer ' }),
  credentialRequired: false,
  engine: OpenAiImagesEngine,
});
