import { getMetadataStorage } from 'class-validator';
import { NESTED_SHAPES } from './nested';

/**
 * A class's rules compiled into one function, for the payloads checked on every message: true
 * means the value passes what validateShape (unknown properties kept) would check, so it need
 * not run; false means "not sure", and validateShape runs for the answer and its problems. Only
 * classes whose every rule is one of a few plain type checks compile (isString, isNumber without
 * options, isInt, isBoolean, isNotEmpty, isIn, isObject, isArray, isOptional, `@Nested`), each checked at least
 * as strictly as class-validator does; any other rule, option or default value leaves the class to
 * validateShape (quickCheck answers null). bench/HISTORY.md, issue 34: the checks of NATS payloads
 * were a tenth to a sixth of each distributed process's CPU.
 */
type Check = (value: unknown) => boolean;
type Shape = abstract new (...args: never[]) => unknown;

const compiled = new WeakMap<Shape, Check | null>();

export function quickCheck(shape: Shape): Check | null {
  if (!compiled.has(shape)) {
    // Set first: a class that nests itself compiles against its own entry (filled below).
    let self: Check | null = null;
    compiled.set(shape, (value) => self !== null && self(value));
    self = compile(shape);
    compiled.set(shape, self);
  }
  return compiled.get(shape) ?? null;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const TYPE_CHECKS: Record<string, (value: unknown, constraints: unknown[] | undefined) => boolean | undefined> = {
  isString: (v) => typeof v === 'string',
  // With options (NaN, infinities, decimal places) it is left to class-validator.
  isNumber: (v, c) => (c === undefined || c.length === 0 || (isPlainObject(c[0]) && Object.keys(c[0]).length === 0) ? typeof v === 'number' && Number.isFinite(v) : undefined),
  isInt: (v) => typeof v === 'number' && Number.isInteger(v),
  isBoolean: (v) => typeof v === 'boolean',
  isNotEmpty: (v) => v !== '' && v !== null && v !== undefined,
  isIn: (v, c) => (Array.isArray(c?.[0]) ? (c[0] as unknown[]).some((allowed) => allowed === v) : undefined),
  isObject: (v) => isPlainObject(v),
  isArray: (v) => Array.isArray(v),
};

function nestedOf(shape: Shape, property: string): { shape: () => Shape; each: boolean } | undefined {
  for (let c: unknown = shape; typeof c === 'function'; c = Object.getPrototypeOf(c)) {
    const found = NESTED_SHAPES.get(c)?.get(property);
    if (found) return found;
  }
  return undefined;
}

function compile(shape: Shape): Check | null {
  // The same lookup class-validator's validateSync makes (no groups, always false, no schema).
  const rules = getMetadataStorage().getTargetValidationMetadatas(shape as new () => unknown, undefined as unknown as string, false, false);
  if (rules.length === 0) return null;
  let defaults: Record<string, unknown>;
  try {
    defaults = new (shape as new () => Record<string, unknown>)();
  } catch {
    return null;
  }
  const byProperty = new Map<string, { optional: boolean; checks: Check[] }>();
  for (const rule of rules) {
    if (rule.each || rule.always || (rule.groups && rule.groups.length > 0) || rule.context !== undefined) return null;
    let entry = byProperty.get(rule.propertyName);
    if (!entry) byProperty.set(rule.propertyName, (entry = { optional: false, checks: [] }));
    if (rule.type === 'conditionalValidation' && rule.name === 'isOptional') {
      entry.optional = true;
    } else if (rule.type === 'customValidation' && rule.name !== undefined && rule.name in TYPE_CHECKS) {
      const check = TYPE_CHECKS[rule.name];
      const constraints = rule.constraints as unknown[] | undefined;
      if (check(undefined, constraints) === undefined && check('', constraints) === undefined) return null;
      entry.checks.push((v) => check(v, constraints) === true);
    } else if (rule.type === 'nestedValidation') {
      const nested = nestedOf(shape, rule.propertyName);
      if (!nested) return null;
      const inner = (v: unknown) => {
        const check = quickCheck(nested.shape());
        return check !== null && isPlainObject(v) && check(v);
      };
      entry.checks.push(nested.each ? (v) => Array.isArray(v) && v.every(inner) : inner);
    } else {
      return null;
    }
  }
  // A default value would be what class-validator checks for a missing property: left to it.
  for (const property of byProperty.keys()) if (defaults[property] !== undefined) return null;
  const properties = [...byProperty].map(([name, { optional, checks }]) => ({ name, optional, checks }));
  return (value) => {
    if (!isPlainObject(value)) return false;
    for (const { name, optional, checks } of properties) {
      const v = value[name];
      if (optional && (v === undefined || v === null)) continue;
      for (const check of checks) if (!check(v)) return false;
    }
    return true;
  };
}
