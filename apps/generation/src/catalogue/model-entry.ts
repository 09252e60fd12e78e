import { GENERATION_TYPES, GenerationType, PLANS, PlanName } from '@gen/contracts';
import { DEMO_PROVIDER, EngineKind, isRecord } from '../providers/provider-kind';
import { checkInputsSchema, checkPriceMultipliers, InputsSchema, NO_INPUTS } from '@gen/model-inputs';
import { MODEL_STATUSES, ModelDefinition, ModelStatus } from './catalogue';

/**
 * A model as operators write it (the catalogue file of `models sync`, and `models list --json`):
 * the API's snake_case names, with the engine binding as one object.
 */
export interface ModelEntry {
  id: string;
  name: string;
  type: GenerationType;
  credits: number;
  minimum_credits: number;
  synchronous: boolean;
  min_plan: PlanName;
  /** Defaults to `active`. */
  status?: ModelStatus;
  /** Who serves it (`replicate`, `fal`, `openai`...); defaults to the engine kind's; always `demo` on a built-in engine. */
  provider?: string;
  /** What it makes and how, for the customers who pick it (plain text, up to 1,000 characters); defaults to none. */
  description?: string;
  /** `{"engine": "<kind>", ...settings}`; credentials only by the name of an environment variable. */
  engine: { engine: string } & Record<string, unknown>;
  /** The inputs customers may give: a JSON Schema object (docs/guide/models.md, "Inputs"); defaults to none. */
  inputs?: InputsSchema;
  /** Numeric inputs the price is multiplied by (`["num_outputs"]`); defaults to none. */
  price_multipliers?: string[];
}

const FIELDS = [
  'id', 'name', 'type', 'credits', 'minimum_credits', 'synchronous', 'min_plan', 'status', 'provider', 'description', 'engine', 'inputs', 'price_multipliers',
];
const OPTIONAL = ['status', 'provider', 'description', 'inputs', 'price_multipliers'];
export const PROVIDER_LABEL = /^[a-z0-9][a-z0-9._-]{0,39}$/;
const MAX_DESCRIPTION = 1000;
export const MODEL_ID = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const MAX_CREDITS = 1_000_000;

export function toModelEntry(model: ModelDefinition): Required<Omit<ModelEntry, 'inputs' | 'price_multipliers'>> & Pick<ModelEntry, 'inputs' | 'price_multipliers'> {
  return {
    id: model.id,
    name: model.name,
    type: model.type,
    credits: model.credits,
    minimum_credits: model.minimumCredits,
    synchronous: model.synchronous,
    min_plan: model.minPlan,
    status: model.status,
    provider: model.provider,
    description: model.description,
    engine: { engine: model.engine, ...model.params },
    ...(model.inputs && { inputs: model.inputs }),
    ...(model.priceMultipliers && model.priceMultipliers.length > 0 && { price_multipliers: model.priceMultipliers }),
  };
}

/**
 * Validates one entry; every problem names `where` and the field (`models[3].engine.baseUrl`).
 * Pure: the CLI checks a whole file with it before anything is written.
 */
export function parseModelEntry(
  raw: unknown,
  where: string,
  kinds: ReadonlyMap<string, EngineKind>,
  problems: string[],
): ModelDefinition | null {
  const start = problems.length;
  if (!isRecord(raw)) {
    problems.push(`${where} must be an object with ${FIELDS.filter((f) => !OPTIONAL.includes(f)).join(', ')}`);
    return null;
  }
  for (const key of Object.keys(raw)) if (!FIELDS.includes(key)) problems.push(`${where}.${key} is not a field of a model`);
  const at = (field: string) => `${where}.${field}`;
  const id = raw.id;
  if (typeof id !== 'string' || !MODEL_ID.test(id)) {
    problems.push(`${at('id')} must be 1 to 100 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit`);
  }
  const name = typeof raw.name === 'string' ? raw.name.trim() : '';
  if (name.length < 1 || name.length > 200 || /[\u0000-\u001f\u007f]/.test(name)) {
    problems.push(`${at('name')} must be 1 to 200 printable characters`);
  }
  if (!GENERATION_TYPES.includes(raw.type as GenerationType)) problems.push(`${at('type')} must be one of ${GENERATION_TYPES.join(', ')}`);
  const credits = readCredits(raw.credits, at('credits'), problems);
  const minimum = readCredits(raw.minimum_credits, at('minimum_credits'), problems);
  if (typeof raw.synchronous !== 'boolean') problems.push(`${at('synchronous')} must be true or false`);
  if (!PLANS.includes(raw.min_plan as PlanName)) problems.push(`${at('min_plan')} must be one of ${PLANS.join(', ')}`);
  const status = raw.status ?? 'active';
  if (!MODEL_STATUSES.includes(status as ModelStatus)) problems.push(`${at('status')} must be one of ${MODEL_STATUSES.join(', ')}`);
  const description = raw.description ?? '';
  if (typeof description !== 'string' || description.length > MAX_DESCRIPTION || /[\u0000-\u0009\u000b-\u001f\u007f]/.test(description)) {
    problems.push(`${at('description')} must be text of at most ${MAX_DESCRIPTION} characters (line breaks allowed, no other control characters)`);
  }
  const binding = parseEngineBinding(raw.engine, at('engine'), kinds, problems);
  const provider = readProvider(raw.provider, binding && kinds.get(binding.engine), at('provider'), problems);
  const inputs = raw.inputs === undefined ? NO_INPUTS : checkInputsSchema(raw.inputs, at('inputs'), problems);
  const priceMultipliers = inputs && credits !== null ? checkPriceMultipliers(raw.price_multipliers, inputs, credits, at('price_multipliers'), problems) : null;
  if (inputs && binding) checkInputMap(binding.params.inputMap, inputs, at('engine.inputMap'), problems);
  if (problems.length > start || !binding || !inputs) return null;
  return {
    id: id as string,
    name,
    type: raw.type as GenerationType,
    credits: credits as number,
    minimumCredits: minimum as number,
    synchronous: raw.synchronous as boolean,
    minPlan: raw.min_plan as PlanName,
    status: status as ModelStatus,
    provider: provider as string,
    description: (description as string).trim(),
    engine: binding.engine,
    params: binding.params,
    ...(raw.inputs !== undefined && { inputs }),
    ...(priceMultipliers && priceMultipliers.length > 0 && { priceMultipliers }),
  };
}

/** Every name an `inputMap` maps is an input the model declares (the kind checked the map's form). */
function checkInputMap(map: unknown, inputs: InputsSchema, where: string, problems: string[]): void {
  if (!isRecord(map)) return;
  for (const name of Object.keys(map)) {
    if (!inputs.properties[name]) problems.push(`${where}.${name} is not an input of the model (declare it in inputs)`);
  }
}

/** `{"engine": "<kind>", ...settings}`, checked by the kind itself. */
export function parseEngineBinding(
  raw: unknown,
  where: string,
  kinds: ReadonlyMap<string, EngineKind>,
  problems: string[],
): { engine: string; params: Record<string, unknown> } | null {
  if (!isRecord(raw) || typeof raw.engine !== 'string') {
    problems.push(`${where} must be an object {"engine": "<kind>", ...settings} (kinds: ${[...kinds.keys()].join(', ')})`);
    return null;
  }
  const { engine, ...params } = raw;
  const kind = kinds.get(engine);
  if (!kind) {
    problems.push(`${where}.engine "${engine}" is not an engine kind (known: ${[...kinds.keys()].join(', ')})`);
    return null;
  }
  const start = problems.length;
  kind.validate(params, where, problems);
  return problems.length > start ? null : { engine, params };
}

/** A whole catalogue file: `{"models": [entry, ...]}`, ids unique. Refused whole on any problem. */
export function parseCatalogueFile(json: unknown, kinds: ReadonlyMap<string, EngineKind>, problems: string[]): ModelDefinition[] {
  if (!isRecord(json) || !Array.isArray(json.models)) {
    problems.push('the catalogue file must be a JSON object {"models": [ ... ]}');
    return [];
  }
  for (const key of Object.keys(json)) if (key !== 'models') problems.push(`"${key}" is not a field of the catalogue file (only "models")`);
  const seen = new Map<string, number>();
  const models: ModelDefinition[] = [];
  json.models.forEach((entry, index) => {
    const label = isRecord(entry) && typeof entry.id === 'string' ? `models[${index}] ("${entry.id}")` : `models[${index}]`;
    const model = parseModelEntry(entry, label, kinds, problems);
    if (!model) return;
    const first = seen.get(model.id);
    if (first !== undefined) problems.push(`${label}.id repeats models[${first}]`);
    seen.set(model.id, index);
    models.push(model);
  });
  return models;
}

/**
 * `provider`: the kind's own by default. A built-in engine's models are always `demo` (they draw
 * shapes from the prompt, they are not AI models), so no label can pass one off as a real provider.
 */
function readProvider(value: unknown, kind: EngineKind | null | undefined, where: string, problems: string[]): string | null {
  if (value === undefined) return kind?.provider ?? null;
  if (typeof value !== 'string' || !PROVIDER_LABEL.test(value)) {
    problems.push(`${where} must be 1 to 40 characters of a-z, 0-9, ".", "_" or "-", starting with a letter or digit`);
    return null;
  }
  if (kind?.provider === DEMO_PROVIDER && value !== DEMO_PROVIDER) {
    problems.push(`${where} must be "${DEMO_PROVIDER}": the "${kind.kind}" engine is a built-in demo, not a model provider`);
    return null;
  }
  return value;
}

function readCredits(value: unknown, where: string, problems: string[]): number | null {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_CREDITS) {
    problems.push(`${where} must be an integer between 0 and ${MAX_CREDITS}`);
    return null;
  }
  return value;
}
