import type { EngineKind } from '../../ports/engine-kind';
import { bindingEngineKind } from '../common/binding-engine-kind';
import { RemoteEngine } from './remote.engine';
import { parseRemoteEngineSettings } from './remote-engine.settings';

/** Our own generic protocol (docs/operations/providers.md, "remote"). */
export const remoteEngineKind: EngineKind = bindingEngineKind({
  kind: 'remote',
  provider: 'remote',
  parse: parseRemoteEngineSettings,
  // A binding without `auth` sends no credential.
  credential: (settings) => settings.auth && { env: settings.auth.valueEnv, header: settings.auth.header, prefix: settings.auth.prefix },
  credentialRequired: false,
  engine: RemoteEngine,
});
