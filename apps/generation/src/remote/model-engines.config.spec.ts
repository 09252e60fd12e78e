import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, EnvReader } from '@gen/config';
import { CATALOGUE } from '../catalogue/catalogue';
import { createBuiltInEngines } from '../engines';
import type { Engine } from '../engines/engine';
import { applyModelEngines, parseModelEngines, readModelEngines } from './model-engines.config';
import { RemoteEngine } from './remote.engine';
import { REMOTE_DEFAULTS } from './remote-engine.settings';

describe('model engine configuration (MODEL_ENGINES)', () => {
  const secrets = (env: Record<string, string>) => (name: string) => env[name];
  const parse = (json: unknown, env: Record<string, string> = {}) => {
    const problems: string[] = [];
    const bindings = parseModelEngines(json, 'MODEL_ENGINES', secrets(env), problems);
    return { bindings, problems };
  };

  it('reads a remote binding, applying defaults and resolving the credential from the environment', () => {
    const { bindings, problems } = parse(
      {
        models: {
          'pixel-flux-1': {
            engine: 'remote',
            baseUrl: 'https://api.example.com/',
            upstreamModel: 'flux-pro',
            auth: { header: 'Authorization', prefix: 'Bearer ', valueEnv: 'ACME_TOKEN' },
            timeouts: { requestMs: 5000, totalMs: 60000 },
          },
          'mesh-smith-1': { engine: 'instant' },
        },
      },
      { ACME_TOKEN: 's3cret' },
    );
    expect(problems).toEqual([]);
    expect(bindings).toEqual([
      {
        modelId: 'pixel-flux-1',
        engine: 'remote',
        remote: {
          baseUrl: 'https://api.example.com',
          submitPath: REMOTE_DEFAULTS.submitPath,
          statusPath: REMOTE_DEFAULTS.statusPath,
          cancelPath: null,
          upstreamModel: 'flux-pro',
          auth: { header: 'Authorization', value: 'Bearer s3cret' },
          connectTimeoutMs: REMOTE_DEFAULTS.connectTimeoutMs,
          requestTimeoutMs: 5000,
          totalTimeoutMs: 60000,
          pollIntervalMs: REMOTE_DEFAULTS.pollIntervalMs,
          retries: REMOTE_DEFAULTS.retries,
          maxOutputBytes: REMOTE_DEFAULTS.maxOutputBytes,
          outputOrigins: [],
        },
      },
      { modelId: 'mesh-smith-1', engine: 'instant' },
    ]);
  });

  it('names every bad field, and never prints the credential', () => {
    const { bindings, problems } = parse(
      {
        extra: true,
        models: {
          a: { engine: 'remote', baseUrl: 'ftp://x', auth: { header: 'Bad Header', value: 'topsecret' }, timeouts: { requestMs: 0 } },
          b: { engine: 'remote', baseUrl: 'https://user:pw@x.example', statusPath: '/jobs', colour: 'red' },
          c: { engine: 'remote', baseUrl: 'https://x.example', auth: { header: 'X-Key', valueEnv: 'MISSING' }, outputOrigins: ['nope'] },
          d: { engine: 'image', baseUrl: 'https://x.example' },
          e: 'image',
        },
      },
      {},
    );
    expect(bindings).toEqual([]);
    expect(problems).toEqual(
      expect.arrayContaining([
        'MODEL_ENGINES.extra is not a known setting',
        'MODEL_ENGINES.models["a"].baseUrl must use http or https',
        'MODEL_ENGINES.models["a"].auth.header must be an HTTP header name',
        'MODEL_ENGINES.models["a"].timeouts.requestMs must be an integer between 50 and 600000',
        'MODEL_ENGINES.models["b"].baseUrl must not carry credentials (use "auth")',
        'MODEL_ENGINES.models["b"].statusPath must contain "{id}"',
        'MODEL_ENGINES.models["b"].colour is not a known setting',
        'MODEL_ENGINES.models["c"].auth.valueEnv names MISSING, which is not set',
        'MODEL_ENGINES.models["c"].outputOrigins[0] must be an http(s) URL',
        'MODEL_ENGINES.models["d"]: only "engine" may be set for the built-in engine "image" (got baseUrl)',
        'MODEL_ENGINES.models["e"] must be an object with "engine"',
      ]),
    );
    expect(problems.join('\n')).not.toContain('topsecret');
  });

  describe('readModelEngines', () => {
    let dir: string;
    beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'model-engines-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    const read = (env: Record<string, string>) => {
      const reader = new EnvReader(env);
      const bindings = readModelEngines(reader);
      let message = '';
      try {
        reader.done();
      } catch (error) {
        message = (error as ConfigError).message;
      }
      return { bindings, message };
    };

    it('reads inline JSON or a file, and nothing when neither is set', () => {
      const file = join(dir, 'engines.json');
      writeFileSync(file, JSON.stringify({ models: { 'pixel-flux-1': { engine: 'instant' } } }));
      expect(read({ MODEL_ENGINES: '{"models":{"pixel-flux-1":{"engine":"instant"}}}' }).bindings).toEqual([
        { modelId: 'pixel-flux-1', engine: 'instant' },
      ]);
      expect(read({ MODEL_ENGINES_FILE: file }).bindings).toEqual([{ modelId: 'pixel-flux-1', engine: 'instant' }]);
      expect(read({})).toEqual({ bindings: [], message: '' });
    });

    it('stops start-up with a message naming the variable', () => {
      expect(read({ MODEL_ENGINES: '{not json' }).message).toContain('MODEL_ENGINES is not valid JSON');
      expect(read({ MODEL_ENGINES_FILE: join(dir, 'missing.json') }).message).toContain('MODEL_ENGINES_FILE: cannot read');
      expect(read({ MODEL_ENGINES: '{}', MODEL_ENGINES_FILE: 'x' }).message).toContain('both set');
      expect(read({ MODEL_ENGINES: '{"models":{"x":{"engine":"remote"}}}' }).message).toContain('baseUrl must be an http(s) URL');
    });
  });

  describe('applyModelEngines', () => {
    const engines = new Map<string, Engine>(Object.entries(createBuiltInEngines()));

    it('rebinds models to built-in or remote engines and leaves the others as the catalogue says', async () => {
      const { bindings } = parse(
        { models: { 'pixel-flux-1': { engine: 'remote', baseUrl: 'https://api.example.com' }, 'mesh-smith-1': { engine: 'instant' } } },
      );
      const applied = applyModelEngines(CATALOGUE, engines, bindings);
      const byId = new Map(applied.models.map((m) => [m.id, m]));
      expect(byId.get('pixel-flux-1')?.engine).toBe('remote:pixel-flux-1');
      expect(byId.get('mesh-smith-1')?.engine).toBe('instant');
      expect(byId.get('motion-lite-1')?.engine).toBe('video');
      expect(applied.engines.get('remote:pixel-flux-1')).toBeInstanceOf(RemoteEngine);
      // Prices and plans are never touched by configuration.
      expect(applied.models.map(({ engine: _e, ...rest }) => rest)).toEqual(CATALOGUE.map(({ engine: _e, ...rest }) => rest));
      await applied.engines.get('remote:pixel-flux-1')?.dispose?.();
    });

    it('refuses unknown models and unknown engines at start-up', () => {
      expect(() => applyModelEngines(CATALOGUE, engines, [{ modelId: 'nope-1', engine: 'instant' }])).toThrow(
        /"nope-1" is not a model of the catalogue/,
      );
      expect(() => applyModelEngines(CATALOGUE, engines, [{ modelId: 'pixel-flux-1', engine: 'warp' }])).toThrow(ConfigError);
    });
  });
});
