import type { Engine } from '../engines/engine';
import { EngineKind } from '../providers/provider-kind';
import { RemoteEngine } from './remote.engine';
import { isRecord, parseRemoteEngineSettings } from './remote-engine.settings';

/** A stand-in credential for validation, which must not depend on the environment it runs in. */
const PLACEHOLDER = 'placeholder';

/** Our own generic protocol (docs/engines.md, "The remote protocol"). */
export const remoteEngineKind: EngineKind = {
  kind: 'remote',
  validate(settings, where, problems) {
    if (isRecord(settings.auth) && settings.auth.value !== undefined) {
      problems.push(`${where}.auth.value: a credential is never stored in the catalogue; name its environment variable in auth.valueEnv`);
      return;
    }
    parseRemoteEngineSettings({ engine: 'remote', ...settings }, where, () => PLACEHOLDER, problems);
  },
  create(modelId, settings, context): Engine {
    const problems: string[] = [];
    const parsed = parseRemoteEngineSettings({ engine: 'remote', ...settings }, `models["${modelId}"].engine`, context.env, problems);
    // Validated when written, so what can still be wrong is the environment: the credential's variable.
    if (!parsed) return unavailableEngine(`remote:${modelId}`);
    return new RemoteEngine(`remote:${modelId}`, parsed);
  },
};

function unavailableEngine(name: string): Engine {
  return {
    name,
    unavailableReason: () => 'This model is temporarily unavailable: its provider credential is not configured on this server.',
    generate: () => Promise.reject(new Error(`engine ${name} is unavailable`)),
  };
}
