import type { Engine } from '../../ports/engine';
import type { EngineKind } from '../../ports/engine-kind';
import { readCredential, unavailableEngine } from '../common/upstream-client';
import { RemoteEngine } from './remote.engine';
import { parseRemoteEngineSettings } from './remote-engine.settings';

/** Our own generic protocol (docs/operations/providers.md, "remote"). */
export const remoteEngineKind: EngineKind = {
  kind: 'remote',
  provider: 'remote',
  validate(settings, where, problems) {
    parseRemoteEngineSettings(settings, where, problems);
  },
  create(modelId, settings, context): Engine {
    const name = `remote:${modelId}`;
    const parsed = parseRemoteEngineSettings(settings, `models["${modelId}"].engine`, []);
    if (!parsed) throw new Error(`the binding of ${modelId} does not validate`); // validated when written: a bug
    const credential = parsed.auth ? readCredential(parsed.auth.valueEnv, context, parsed.auth.header, parsed.auth.prefix) : null;
    if (credential === 'missing') return unavailableEngine(name);
    return new RemoteEngine(name, parsed, credential, context.allowPrivateNetworks, context.storage);
  },
};
