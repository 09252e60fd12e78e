import { GenerationType, OpenAiImagesMapping, PlanName, validateShape } from '@gen/contracts';
import { DEMO_PROVIDER, EngineKind, isRecord } from '../ports/engine-kind';
import { checkInputsSchema, checkPriceMultipliers, InputsSchema, NO_INPUTS } from '@gen/model-inputs';
import { ModelDefinition, ModelStatus } from './catalogue';
import { ModelEntryDto, PROVIDER_LABEL } from './model-entry.dto';
import { checkOpenAiMapping } from './openai-mapping';


const NOT_AN_OBJECT = 'must be an object with id, name, type, credits, minimum_credits, synchronous, min_plan, engine';

/**
 * A model as operators write it (the catalogue file of `models sync`, and `models list --json`):
 * the API's snake_case names, with the engine binding as one object (validated as `ModelEntryDto`).
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
  /** How the OpenAI-compatible images route maps its fields to the inputs (docs/guide/openai-compatible.md); default: not served there. */
  openai?: OpenAiImagesMapping;
  /** The price of a batch line, 1 to `credits` (docs/design/batches.md); default: `credits`. */
  batch_credits?: number;
}

export function toModelEntry(model: ModelDefinition): Required<Omit<ModelEntry, 'inputs' | 'price_multipliers' | 'openai' | 'batch_credits'>> & Pick<ModelEntry, 'inputs' | 'price_multipliers' | 'openai' | 'batch_credits'> {
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
    ...(model.openai && { openai: model.openai }),
    ...(model.batchCredits !== undefined && { batch_credits: model.batchCredits }),
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
  const result = validateShape(ModelEntryDto, raw, { path: where, unknown: 'forbid', unknownMessage: () => 'is not a field of a model', notObjectMessage: NOT_AN_OBJECT });
  if (!result.ok) problems.push(...result.problems);
  if (!isRecord(raw)) return null;
  const entry = result.ok ? result.value : null;
  const binding = parseEngineBinding(raw.engine, `${where}.engine`, kinds, problems);
  const provider = readProvider(raw.provider, binding && kinds.get(binding.engine), `${where}.provider`, problems);
  const inputs = raw.inputs === undefined ? NO_INPUTS : checkInputsSchema(raw.inputs, `${where}.inputs`, problems);
  const priceMultipliers = inputs && entry ? checkPriceMultipliers(raw.price_multipliers, inputs, entry.credits, `${where}.price_multipliers`, problems) : null;
  const openai = raw.openai === undefined || !inputs ? undefined : checkOpenAiMapping(raw.openai, inputs, entry?.type, `${where}.openai`, problems);
  if (entry && entry.batch_credits !== undefined && entry.batch_credits !== null && entry.batch_credits > entry.credits) {
    problems.push(`${where}.batch_credits must be at most credits (${entry.credits}): it is the batch discount`);
  }
  if (inputs && binding) checkInputMap(binding.params.inputMap, inputs, `${where}.engine.inputMap`, problems);
  // The entry's check and the binding's both see a reserved key inside the binding: named once.
  problems.push(...new Set(problems.splice(start)));
  if (problems.length > start || !entry || !binding || !inputs) return null;
  return {
    id: entry.id,
    name: entry.name.trim(),
    type: entry.type,
    credits: entry.credits,
    minimumCredits: entry.minimum_credits,
    synchronous: entry.synchronous,
    minPlan: entry.min_plan,
    status: entry.status ?? 'active',
    provider: provider as string,
    description: (entry.description ?? '').trim(),
    engine: binding.engine,
    params: binding.params,
    ...(raw.inputs !== undefined && { inputs }),
    ...(priceMultipliers && priceMultipliers.length > 0 && { priceMultipliers }),
    ...(openai && { openai }),
    ...(entry.batch_credits !== undefined && entry.batch_credits !== null && { batchCredits: entry.batch_credits }),
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
  if (typeof value !== 'string' || !PROVIDER_LABEL.test(value)) return null; // ModelEntryDto said why
  if (kind?.provider === DEMO_PROVIDER && value !== DEMO_PROVIDER) {
    problems.push(`${where} must be "${DEMO_PROVIDER}": the "${kind.kind}" engine is a built-in demo, not a model provider`);
    return null;
  }
  return value;
}
