import {
  ARRAY_MAX_SIZE,
  getMetadataStorage,
  IS_ARRAY,
  IS_BOOLEAN,
  IS_IN,
  IS_INT,
  IS_ISO8601,
  IS_LENGTH,
  IS_NOT_EMPTY,
  IS_NUMBER,
  IS_OBJECT,
  IS_STRING,
  MATCHES,
  MAX,
  MAX_LENGTH,
  MIN,
  MIN_LENGTH,
  ValidationTypes,
} from 'class-validator';
import { CALLBACK_HEADERS, MAX_CALLBACK_HEADER_LENGTH } from '../shared/provider-callbacks';
import { knownProperties, nestedShape } from '../validation';

/** A JSON Schema (draft 7, the dialect of AsyncAPI 3.0's default schema format) as a plain object. */
export type JsonSchema = { [key: string]: unknown };

type Shape = abstract new (...args: never[]) => unknown;
type Metadata = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>[number];

/**
 * What each class-validator rule says in JSON Schema, by the rule's name. A rule missing here stops
 * the generator with the class and property that use it, so no rule is left out of the document
 * silently: add its line (a custom rule says what it checks by hand, as `isCallbackHeaders` does).
 */
const RULES: Record<string, (constraints: unknown[]) => JsonSchema> = {
  [IS_STRING]: () => ({ type: 'string' }),
  [IS_NUMBER]: () => ({ type: 'number' }),
  [IS_INT]: () => ({ type: 'integer' }),
  [IS_BOOLEAN]: () => ({ type: 'boolean' }),
  [IS_OBJECT]: () => ({ type: 'object' }),
  [IS_ARRAY]: () => ({ type: 'array' }),
  [IS_IN]: ([values]) => enumOf(values as unknown[]),
  [IS_ISO8601]: () => ({ type: 'string', format: 'date-time' }),
  [IS_NOT_EMPTY]: () => ({ minLength: 1 }),
  [IS_LENGTH]: ([min, max]) => ({ minLength: min, ...(max !== undefined && { maxLength: max }) }),
  [MIN_LENGTH]: ([min]) => ({ minLength: min }),
  [MAX_LENGTH]: ([max]) => ({ maxLength: max }),
  [MATCHES]: ([pattern]) => ({ type: 'string', pattern: pattern instanceof RegExp ? pattern.source : String(pattern) }),
  [MIN]: ([min]) => ({ minimum: min }),
  [MAX]: ([max]) => ({ maximum: max }),
  [ARRAY_MAX_SIZE]: ([max]) => ({ maxItems: max }),
  // provider-callbacks.ts: an object of the forwarded headers only, each a bounded string.
  isCallbackHeaders: () => ({
    type: 'object',
    propertyNames: { enum: [...CALLBACK_HEADERS] },
    additionalProperties: { type: 'string', maxLength: MAX_CALLBACK_HEADER_LENGTH },
  }),
};

/** The order keys are written in, so a schema reads the same whatever the order of its decorators. */
const KEY_ORDER = ['$ref', 'oneOf', 'type', 'format', 'enum', 'pattern', 'minLength', 'maxLength', 'minimum', 'maximum', 'maxItems', 'propertyNames', 'additionalProperties', 'items'];

/**
 * JSON Schemas derived from class-validator decorators: one per class reached (a `@Nested` class gets
 * its own and is referenced), keyed by class name. Properties the class does not declare are allowed
 * (no `additionalProperties: false`): receivers keep what they do not know (CONTRIBUTING.md, "Messages").
 */
export class SchemaSet {
  readonly schemas = new Map<string, JsonSchema>();
  private readonly shapes = new Map<string, Shape>();

  /** A reference to `shape`'s schema, built on first use. */
  ref(shape: Shape): JsonSchema {
    const known = this.shapes.get(shape.name);
    if (known && known !== shape) throw new Error(`Two payload classes are named ${shape.name}: the document names schemas by class`);
    if (!known) {
      this.shapes.set(shape.name, shape);
      this.schemas.set(shape.name, {}); // reserved first: a class that nests itself refers to it
      this.schemas.set(shape.name, this.objectSchema(shape));
    }
    return { $ref: `#/components/schemas/${shape.name}` };
  }

  private objectSchema(shape: Shape): JsonSchema {
    const all = getMetadataStorage().getTargetValidationMetadatas(shape as new () => object, '', true, false);
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const name of knownProperties(shape)) {
      const rules = all.filter((m) => m.propertyName === name);
      const { optional, nullable } = presence(rules);
      properties[name] = this.propertySchema(shape, name, rules, nullable);
      if (!optional) required.push(name);
    }
    return { type: 'object', properties, ...(required.length > 0 && { required }) };
  }

  private propertySchema(shape: Shape, name: string, rules: Metadata[], nullable: boolean): JsonSchema {
    let value: JsonSchema = {};
    let items: JsonSchema | undefined;
    const nested = nestedShape(shape, name);
    if (nested) {
      if (nested.each) items = this.ref(nested.shape);
      else value = this.ref(nested.shape);
    }
    for (const rule of rules) {
      if (rule.type === ValidationTypes.CONDITIONAL_VALIDATION || rule.type === ValidationTypes.NESTED_VALIDATION) continue;
      const key = rule.name ?? rule.type;
      const toSchema = RULES[key];
      if (!toSchema) throw new Error(`${shape.name}.${name}: @${key} has no JSON Schema; add it to RULES in libs/contracts/src/asyncapi/json-schema.ts`);
      const fragment = toSchema(rule.constraints ?? []);
      if (rule.each) items = { ...items, ...fragment };
      else value = { ...value, ...fragment };
    }
    if (items) value = { ...value, type: 'array', items: ordered(items) };
    if (Object.keys(value).length === 0) throw new Error(`${shape.name}.${name}: no rule says its type`);
    return ordered(nullable ? orNull(value) : value);
  }
}

/**
 * Whether a property may be absent (`optional`) or null (`nullable`), asked of its conditions
 * themselves (`@IsOptional`, `@ValidateIf`, `Nullable`, `IfGiven`): each is called with an absent
 * and with a null value, and a condition that skips the checks for one allows it.
 */
function presence(rules: Metadata[]): { optional: boolean; nullable: boolean } {
  const conditions = rules.filter((m) => m.type === ValidationTypes.CONDITIONAL_VALIDATION).map((m) => m.constraints[0] as (o: object, v: unknown) => boolean);
  const skips = (value: unknown) => conditions.some((check) => !check({ [rules[0]?.propertyName ?? '']: value }, value));
  return { optional: skips(undefined), nullable: skips(null) };
}

function enumOf(values: unknown[]): JsonSchema {
  const types = [...new Set(values.map((v) => (Number.isInteger(v) ? 'integer' : typeof v)))];
  return types.length === 1 ? { type: types[0], enum: [...values] } : { enum: [...values] };
}

function orNull(schema: JsonSchema): JsonSchema {
  if (schema.$ref) return { oneOf: [schema, { type: 'null' }] };
  const withNull: JsonSchema = { ...schema };
  if (typeof schema.type === 'string') withNull.type = [schema.type, 'null'];
  if (Array.isArray(schema.enum)) withNull.enum = [...(schema.enum as unknown[]), null];
  return withNull;
}

function ordered(schema: JsonSchema): JsonSchema {
  const rank = (key: string) => (KEY_ORDER.includes(key) ? KEY_ORDER.indexOf(key) : KEY_ORDER.length);
  return Object.fromEntries(Object.entries(schema).sort(([a], [b]) => rank(a) - rank(b)));
}
