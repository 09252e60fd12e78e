import type { OutputStorage } from '@gen/storage';
import type { Engine, EngineOutput } from '../../ports/engine';
import type { ProviderContext } from '../../ports/engine-kind';
import { bindingEngineKind } from './binding-engine-kind';
import type { Credential } from './upstream-client';

interface FakeSettings {
  tokenEnv: string | null;
}

/** An adapter that keeps what it was built with. */
class FakeEngine implements Engine {
  constructor(
    readonly name: string,
    readonly settings: FakeSettings,
    readonly credential: Credential | null,
    readonly allowPrivateNetworks: boolean,
    readonly storage?: OutputStorage,
  ) {}

  generate(): Promise<EngineOutput[]> {
    return Promise.resolve([]);
  }
}

function parse(settings: Record<string, unknown>, where: string, problems: string[]): FakeSettings | null {
  if (settings.tokenEnv !== undefined && typeof settings.tokenEnv !== 'string') {
    problems.push(`${where}.tokenEnv must be a string`);
    return null;
  }
  return { tokenEnv: settings.tokenEnv ?? null };
}

const kind = (credentialRequired: boolean) =>
  bindingEngineKind({
    kind: 'fake',
    provider: 'fake-provider',
    parse,
    credential: (settings) => ({ env: settings.tokenEnv, header: 'Authorization', prefix: 'Key ' }),
    credentialRequired,
    engine: FakeEngine,
  });

const storage = {} as OutputStorage;
const context = (env: Record<string, string>): ProviderContext => ({ env: (name) => env[name], allowPrivateNetworks: true, storage });

describe('bindingEngineKind', () => {
  it('builds the adapter with its name, parsed settings, credential, network policy and storage', () => {
    const engine = kind(true).create('m1', { tokenEnv: 'FAKE_TOKEN' }, context({ FAKE_TOKEN: ' s3cret ' }));
    expect(engine).toBeInstanceOf(FakeEngine);
    expect(engine).toMatchObject({
      name: 'fake:m1',
      settings: { tokenEnv: 'FAKE_TOKEN' },
      credential: { header: 'Authorization', value: 'Key s3cret', secret: 's3cret' },
      allowPrivateNetworks: true,
    });
    expect((engine as FakeEngine).storage).toBe(storage);
  });

  it('lists the model unavailable when the credential variable is unset, empty or not a header value', () => {
    const envs: Record<string, string>[] = [{}, { FAKE_TOKEN: '  ' }, { FAKE_TOKEN: 'a\nb' }];
    for (const env of envs) {
      for (const required of [true, false]) {
        const engine = kind(required).create('m1', { tokenEnv: 'FAKE_TOKEN' }, context(env));
        expect(engine).not.toBeInstanceOf(FakeEngine);
        expect(engine.name).toBe('fake:m1');
        expect(engine.unavailableReason?.()).toMatch(/credential is not configured/);
      }
    }
  });

  it('runs without a credential only where the kind does not require one', () => {
    expect(kind(false).create('m1', {}, context({}))).toMatchObject({ credential: null });
    expect(kind(true).create('m1', {}, context({})).unavailableReason?.()).toMatch(/credential is not configured/);
  });

  it('validates with the kind\'s parser and refuses to build a binding that does not validate', () => {
    const problems: string[] = [];
    kind(true).validate({ tokenEnv: 3 }, 'models["m1"].engine', problems);
    expect(problems).toEqual(['models["m1"].engine.tokenEnv must be a string']);
    expect(() => kind(true).create('m1', { tokenEnv: 3 }, context({}))).toThrow('the binding of m1 does not validate');
    expect(kind(true)).toMatchObject({ kind: 'fake', provider: 'fake-provider' });
  });
});
