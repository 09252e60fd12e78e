import { readFileSync } from 'node:fs';
import { ConfigError, EnvReader } from '@gen/config';
import type { ModelDefinition } from '../catalogue/catalogue';
import type { Engine } from '../engines/engine';
import { RemoteEngine } from './remote.engine';
import { isRecord, parseRemoteEngineSettings, RemoteEngineSettings, SecretLookup } from './remote-engine.settings';

/**
 * Which engine runs a catalogue model, when it is not the one the catalogue names: a built-in
 * engine by name (`image`, `video`, `audio`, `mesh`, `instant`) or an upstream API (`remote`).
 * Set by the deployment (MODEL_ENGINES or MODEL_ENGINES_FILE, docs/engines.md); prices, plans and
 * sync/async stay in the reviewed catalogue.
 */
export type ModelEngineBinding =
  | { modelId: string; engine: 'remote'; remote: RemoteEngineSettings }
  | { modelId: string; engine: string; remote?: undefined };

/** Parses `{ "models": { "<model id>": { "engine": ..., ...settings } } }`; problems name the bad field. */
export function parseModelEngines(json: unknown, source: string, secrets: SecretLookup, problems: string[]): ModelEngineBinding[] {
  if (!isRecord(json) || !isRecord(json.models)) {
    problems.push(`${source} must be a JSON object {"models": {"<model id>": {"engine": "..."}}}`);
    return [];
  }
  for (const key of Object.keys(json)) if (key !== 'models') problems.push(`${source}.${key} is not a known setting`);
  const bindings: ModelEngineBinding[] = [];
  for (const [modelId, entry] of Object.entries(json.models)) {
    const where = `${source}.models["${modelId}"]`;
    if (!isRecord(entry) || typeof entry.engine !== 'string' || entry.engine === '') {
      problems.push(`${where} must be an object with "engine"`);
      continue;
    }
    if (entry.engine === 'remote') {
      const remote = parseRemoteEngineSettings(entry, where, secrets, problems);
      if (remote) bindings.push({ modelId, engine: 'remote', remote });
      continue;
    }
    const extra = Object.keys(entry).filter((key) => key !== 'engine');
    if (extra.length > 0) {
      problems.push(`${where}: only "engine" may be set for the built-in engine "${entry.engine}" (got ${extra.join(', ')})`);
      continue;
    }
    bindings.push({ modelId, engine: entry.engine });
  }
  return bindings;
}

/**
 * Reads MODEL_ENGINES (inline JSON) or MODEL_ENGINES_FILE (path of a JSON file); credentials are
 * named by `auth.valueEnv` and read from the same environment. Problems are added to `env`, so the
 * process stops at start-up with all of them.
 */
export function readModelEngines(env: EnvReader): ModelEngineBinding[] {
  const inline = env.optionalString('MODEL_ENGINES');
  const file = env.optionalString('MODEL_ENGINES_FILE');
  if (inline && file) {
    env.problem('MODEL_ENGINES and MODEL_ENGINES_FILE are both set; use one');
    return [];
  }
  const source = inline ? 'MODEL_ENGINES' : 'MODEL_ENGINES_FILE';
  let text = inline;
  if (file) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      env.problem(`MODEL_ENGINES_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      return [];
    }
  }
  if (text === undefined) return [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    env.problem(`${source} is not valid JSON (${(error as Error).message})`);
    return [];
  }
  const problems: string[] = [];
  const bindings = parseModelEngines(json, source, (name) => env.optionalString(name), problems);
  problems.forEach((p) => env.problem(p));
  return bindings;
}

/**
 * Applies the bindings to the catalogue: each bound model gets its engine, remote bindings get a
 * RemoteEngine of their own (named `remote:<model id>`). Refuses, at start-up, a binding to a model
 * or an engine that does not exist.
 */
export function applyModelEngines(
  models: readonly ModelDefinition[],
  engines: ReadonlyMap<string, Engine>,
  bindings: readonly ModelEngineBinding[],
): { models: ModelDefinition[]; engines: Map<string, Engine> } {
  const problems: string[] = [];
  const byId = new Map(models.map((m) => [m.id, m]));
  const all = new Map(engines);
  const rebound = new Map<string, string>();
  const remotes: Array<[string, RemoteEngineSettings]> = [];
  for (const binding of bindings) {
    if (!byId.has(binding.modelId)) {
      problems.push(`MODEL_ENGINES: "${binding.modelId}" is not a model of the catalogue (known: ${[...byId.keys()].join(', ')})`);
      continue;
    }
    if (binding.engine === 'remote' && binding.remote) {
      const name = `remote:${binding.modelId}`;
      remotes.push([name, binding.remote]);
      rebound.set(binding.modelId, name);
    } else if (engines.has(binding.engine)) {
      rebound.set(binding.modelId, binding.engine);
    } else {
      problems.push(`MODEL_ENGINES: "${binding.modelId}" names the engine "${binding.engine}", which does not exist (known: remote, ${[...engines.keys()].join(', ')})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  for (const [name, settings] of remotes) all.set(name, new RemoteEngine(name, settings));
  return {
    models: models.map((m) => (rebound.has(m.id) ? { ...m, engine: rebound.get(m.id) as string } : m)),
    engines: all,
  };
}
