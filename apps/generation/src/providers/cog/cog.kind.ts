import type { EngineKind } from '../../ports/engine-kind';
import { bindingEngineKind } from '../common/binding-engine-kind';
import { BINDING_DEFAULTS, BindingSettings, BindingSpec, readBinding } from '../common/binding-settings';
import { CogEngine } from './cog.engine';

const SPEC: BindingSpec = {
  defaultBaseUrl: null,
  upstreamModel: 'refused',
  tokenEnv: 'optional',
  // requestMs bounds the cancel call; the prediction call itself is bounded by totalMs (it lasts as long as the prediction).
  defaults: { requestMs: BINDING_DEFAULTS.requestTimeoutMs, totalMs: BINDING_DEFAULTS.totalTimeoutMs, outputOrigins: [] },
  reservedInput: [],
  callbacks: true,
};

function parse(settings: Record<string, unknown>, where: string, problems: string[]): BindingSettings | null {
  const binding = readBinding(settings, where, SPEC, problems);
  return binding?.settings ?? null;
}

/**
 * A self-hosted Cog container (https://github.com/replicate/cog/blob/main/docs/http.md):
 * `{"engine": "cog", "baseUrl": "http://flux.gpu.svc:5000", "input": {...}}`; `tokenEnv` only when a
 * proxy in front of it wants a Bearer token.
 */
export const cogEngineKind: EngineKind = bindingEngineKind({
  kind: 'cog',
  provider: 'cog',
  parse,
  credential: (settings) => ({ env: settings.tokenEnv, header: 'Authorization', prefix: 'Bearer ' }),
  credentialRequired: false,
  engine: CogEngine,
});
