/**
 * A model's inputs: the subset of JSON Schema the service enforces (docs/guide/models.md, "Inputs").
 * An object of flat properties, each a string, integer, number or boolean, with `enum`,
 * `minimum`/`maximum`, `minLength`/`maxLength`, `default`, `title`, `description`, and
 * `format: "uri"` for media (an https URL). Nothing nests: an input is never an object
 * or a list, so a customer's input is always a few bounded values.
 */
import type { InputProperty, InputsSchema, InputType } from '@gen/contracts';

export type { InputProperty, InputsSchema, InputType };

/** The schema of a model that declares no inputs: `input` must then be absent or `{}`. */
export const NO_INPUTS: InputsSchema = Object.freeze({ type: 'object', properties: {}, additionalProperties: false }) as InputsSchema;

export const INPUT_TYPES: readonly InputType[] = ['string', 'integer', 'number', 'boolean'];
/** An input's name: what customers write, and what `inputMap` and `price_multipliers` name. */
export const INPUT_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const MAX_INPUTS = 64;
/** Longest string input, and the length of one whose schema gives no `maxLength`. */
export const MAX_INPUT_STRING = 10_000;
/** Longest media URL. */
export const MAX_URI_LENGTH = 2_048;
const MAX_ENUM = 200;
const MAX_TITLE = 200;
const MAX_DESCRIPTION = 1_000;

const ROOT_KEYS = ['type', 'properties', 'required', 'additionalProperties'];
const PROPERTY_KEYS = ['type', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'default', 'title', 'description', 'format'];
/** Names that are fields of the request itself, never inputs. */
const RESERVED = ['prompt'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks an operator's schema; every problem names `where` and the keyword. A keyword the service
 * does not enforce (`pattern`, `oneOf`, `items`, nested objects...) is refused rather than ignored,
 * so a schema never promises a check that is not made. Returns the schema as stored
 * (`additionalProperties: false` made explicit), or null.
 */
export function checkInputsSchema(raw: unknown, where: string, problems: string[]): InputsSchema | null {
  const start = problems.length;
  if (!isRecord(raw)) {
    problems.push(`${where} must be a JSON Schema object: {"type": "object", "properties": {...}, "required": [...], "additionalProperties": false}`);
    return null;
  }
  for (const key of Object.keys(raw)) {
    if (!ROOT_KEYS.includes(key)) problems.push(`${where}.${key}: keyword not supported (supported at the top: ${ROOT_KEYS.join(', ')})`);
  }
  if (raw.type !== 'object') problems.push(`${where}.type must be "object"`);
  if (raw.additionalProperties !== undefined && raw.additionalProperties !== false) {
    problems.push(`${where}.additionalProperties must be false: an input the model does not declare is refused`);
  }
  const properties: Record<string, InputProperty> = {};
  const rawProperties = raw.properties ?? {};
  if (!isRecord(rawProperties)) problems.push(`${where}.properties must be an object of inputs`);
  else {
    const names = Object.keys(rawProperties);
    if (names.length > MAX_INPUTS) problems.push(`${where}.properties: at most ${MAX_INPUTS} inputs`);
    for (const name of names.slice(0, MAX_INPUTS)) {
      const at = `${where}.properties.${name}`;
      if (!INPUT_NAME.test(name)) problems.push(`${at}: an input's name is 1 to 64 letters, digits or _, not starting with a digit`);
      else if (RESERVED.includes(name)) problems.push(`${at}: "${name}" is a field of the request itself, not an input`);
      const property = checkProperty(rawProperties[name], at, problems);
      if (property) properties[name] = property;
    }
  }
  let required: string[] | undefined;
  if (raw.required !== undefined) {
    if (!Array.isArray(raw.required) || !raw.required.every((r): r is string => typeof r === 'string')) {
      problems.push(`${where}.required must be a list of input names`);
    } else {
      required = [...new Set(raw.required)];
      if (required.length !== raw.required.length) problems.push(`${where}.required names an input twice`);
      for (const name of required) if (isRecord(rawProperties) && !(name in rawProperties)) problems.push(`${where}.required: "${name}" is not in properties`);
    }
  }
  if (problems.length > start) return null;
  return { type: 'object', properties, ...(required && required.length > 0 && { required }), additionalProperties: false };
}

function checkProperty(raw: unknown, at: string, problems: string[]): InputProperty | null {
  const start = problems.length;
  if (!isRecord(raw)) {
    problems.push(`${at} must be an object such as {"type": "integer", "minimum": 1, "maximum": 4}`);
    return null;
  }
  for (const key of Object.keys(raw)) {
    if (!PROPERTY_KEYS.includes(key)) problems.push(`${at}.${key}: keyword not supported (supported: ${PROPERTY_KEYS.join(', ')})`);
  }
  const type = raw.type as InputType;
  if (!INPUT_TYPES.includes(type)) {
    problems.push(`${at}.type must be one of ${INPUT_TYPES.join(', ')} (inputs do not nest)`);
    return null;
  }
  const numeric = type === 'integer' || type === 'number';
  const property: InputProperty = { type };
  for (const bound of ['minimum', 'maximum'] as const) {
    const value = raw[bound];
    if (value === undefined) continue;
    if (!numeric) problems.push(`${at}.${bound} applies to integer and number inputs only`);
    else if (typeof value !== 'number' || !Number.isFinite(value) || (type === 'integer' && !Number.isInteger(value))) {
      problems.push(`${at}.${bound} must be ${type === 'integer' ? 'an integer' : 'a number'}`);
    } else property[bound] = value;
  }
  if (property.minimum !== undefined && property.maximum !== undefined && property.minimum > property.maximum) {
    problems.push(`${at}.minimum must not exceed maximum`);
  }
  for (const bound of ['minLength', 'maxLength'] as const) {
    const value = raw[bound];
    if (value === undefined) continue;
    if (type !== 'string') problems.push(`${at}.${bound} applies to string inputs only`);
    else if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > MAX_INPUT_STRING) {
      problems.push(`${at}.${bound} must be an integer from 0 to ${MAX_INPUT_STRING}`);
    } else property[bound] = value;
  }
  if (property.minLength !== undefined && property.maxLength !== undefined && property.minLength > property.maxLength) {
    problems.push(`${at}.minLength must not exceed maxLength`);
  }
  if (raw.format !== undefined) {
    if (raw.format !== 'uri') problems.push(`${at}.format: only "uri" is supported (a media input)`);
    else if (type !== 'string') problems.push(`${at}.format "uri" applies to string inputs only`);
    else property.format = 'uri';
  }
  if (raw.enum !== undefined) {
    if (!Array.isArray(raw.enum) || raw.enum.length === 0 || raw.enum.length > MAX_ENUM) {
      problems.push(`${at}.enum must be a list of 1 to ${MAX_ENUM} values`);
    } else if (!raw.enum.every((v) => matchesType(v, type)) || type === 'boolean') {
      problems.push(`${at}.enum: every value must be ${article(type)}${type === 'boolean' ? ' (a boolean needs no enum)' : ''}`);
    } else if (new Set(raw.enum).size !== raw.enum.length) problems.push(`${at}.enum lists a value twice`);
    else property.enum = raw.enum as Array<string | number>;
  }
  for (const [key, max] of [
    ['title', MAX_TITLE],
    ['description', MAX_DESCRIPTION],
  ] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.length > max) problems.push(`${at}.${key} must be text of at most ${max} characters`);
    else property[key] = value;
  }
  if (raw.default !== undefined) {
    if (property.format === 'uri') problems.push(`${at}.default: a media input has no default`);
    else if (problems.length === start) {
      const wrong = propertyProblem(raw.default, property);
      if (wrong) problems.push(`${at}.default ${wrong}`);
      else property.default = raw.default as string | number | boolean;
    }
  }
  return problems.length > start ? null : property;
}

function matchesType(value: unknown, type: InputType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
  }
}

function article(type: InputType): string {
  return type === 'integer' ? 'an integer' : `a ${type}`;
}

/** What a value must be, in words: `must be an integer from 0 to 2147483647`. */
export function expectation(property: InputProperty): string {
  if (property.enum) return `must be one of ${property.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  switch (property.type) {
    case 'integer':
    case 'number': {
      const kind = article(property.type);
      const { minimum: min, maximum: max } = property;
      if (min !== undefined && max !== undefined) return `must be ${kind} from ${min} to ${max}`;
      if (min !== undefined) return `must be ${kind} of at least ${min}`;
      if (max !== undefined) return `must be ${kind} of at most ${max}`;
      return `must be ${kind}`;
    }
    case 'boolean':
      return 'must be true or false';
    case 'string': {
      if (property.format === 'uri') return 'must be an https URL or an upload (its id or url: POST /api/v1/uploads)';
      const min = property.minLength ?? 0;
      const max = Math.min(property.maxLength ?? MAX_INPUT_STRING, MAX_INPUT_STRING);
      return min > 0 ? `must be a string of ${min} to ${max} characters` : `must be a string of at most ${max} characters`;
    }
  }
}

/** Why a value does not fit the property (`must be ...`), or null when it does. Media values are checked for their form only. */
export function propertyProblem(value: unknown, property: InputProperty): string | null {
  const wrong = expectation(property);
  if (!matchesType(value, property.type)) return wrong;
  if (property.enum && !property.enum.includes(value as string | number)) return wrong;
  if (typeof value === 'number') {
    if (property.minimum !== undefined && value < property.minimum) return wrong;
    if (property.maximum !== undefined && value > property.maximum) return wrong;
  }
  if (typeof value === 'string') {
    const max = property.format === 'uri' ? MAX_URI_LENGTH : Math.min(property.maxLength ?? MAX_INPUT_STRING, MAX_INPUT_STRING);
    if (value.length > max || value.length < (property.minLength ?? 0)) return wrong;
  }
  return null;
}

/** The names of a schema's media inputs (`format: "uri"`). */
export function mediaInputs(schema: InputsSchema): string[] {
  return Object.entries(schema.properties)
    .filter(([, p]) => p.format === 'uri')
    .map(([name]) => name);
}
