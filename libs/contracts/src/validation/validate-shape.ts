import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, ValidationError } from 'class-validator';
import './metadata-memo';

/**
 * The one way input is checked at every edge (HTTP bodies, NATS payloads, catalogue entries and
 * bindings, env): a class with class-validator decorators, filled by class-transformer
 * (docs/design/decisions/validation.md).
 */
export type ShapeResult<T> = { ok: true; value: T } | { ok: false; problems: string[] };

export interface ShapeOptions {
  /** Where the value sits, the start of every problem's path (`models[2]`); none by default. */
  path?: string;
  /**
   * Properties the class does not declare: kept as they came (default), stripped, or a problem each.
   * Stripped or forbidden, `__proto__` and `constructor` are refused as keys at any depth too.
   */
  unknown?: 'keep' | 'strip' | 'forbid';
  /** The problem of a forbidden property, after its path (default `is not a known property`). */
  unknownMessage?: (property: string, known: readonly string[], shape: Shape<object>) => string;
  /** The problem when the value is not an object at all, after the path (default `must be an object`). */
  notObjectMessage?: string;
  /** Every problem of a property instead of its first (default false: one readable problem per field). */
  allProblems?: boolean;
}

export type Shape<T> = new (...args: never[]) => T;

/**
 * Fills an instance of `shape` from `plain` (field initialisers are the defaults of missing values,
 * `@Nested` builds nested classes) and validates it. Problems name the path and say what is wrong:
 * `models[2].binding.maxInFlight must be a positive integer`. A decorator's message reads best written
 * after the property (`$property must be ...`, or `must be ...`); either way the path replaces the name.
 * A message of several lines is several problems (`$property[0] must be ...` for each bad item).
 */
export function validateShape<T extends object>(shape: Shape<T>, plain: unknown, options: ShapeOptions = {}): ShapeResult<T> {
  const path = options.path ?? '';
  if (!isPlainObject(plain)) return { ok: false, problems: [join(path || 'value', options.notObjectMessage ?? 'must be an object')] };
  const unknown = options.unknown ?? 'keep';
  const reserved = unknown === 'keep' ? [] : reservedNames(plain, path);
  if (reserved.length > 0) return { ok: false, problems: reserved };
  const value = plainToInstance(shape as new () => T, plain, { exposeDefaultValues: true }) as T;
  // class-validator refuses a class it knows no rule of ("an unknown value"): such a shape takes no property.
  if (knownProperties(shape).length === 0) return declaresNothing(shape, value, Object.keys(plain), path, options);
  const errors = validateSync(value, {
    whitelist: unknown !== 'keep',
    forbidNonWhitelisted: unknown === 'forbid',
    forbidUnknownValues: true,
    validationError: { target: true, value: true },
  });
  if (errors.length === 0) return { ok: true, value };
  const problems: string[] = [];
  for (const error of errors) collect(error, path, options, problems);
  return { ok: false, problems };
}

function declaresNothing<T extends object>(shape: Shape<T>, value: T, keys: string[], path: string, options: ShapeOptions): ShapeResult<T> {
  const unknown = options.unknown ?? 'keep';
  if (unknown === 'keep' || keys.length === 0) return { ok: true, value };
  if (unknown === 'strip') return { ok: true, value: plainToInstance(shape as new () => T, {}) as T };
  const message = (key: string) => (options.unknownMessage ? options.unknownMessage(key, [], shape) : 'is not a known property');
  return { ok: false, problems: keys.map((key) => join(path ? `${path}.${key}` : key, message(key))) };
}

/** The names `shape` declares (what `unknown: 'forbid'` accepts): a base class's first, each in declaration order. */
export function knownProperties(shape: abstract new (...args: never[]) => unknown): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(shape, '', true, false);
  const depth = (target: unknown) => {
    let n = 0;
    for (let c: unknown = shape; c && c !== target; c = Object.getPrototypeOf(c)) n++;
    return n;
  };
  const ordered = metadata.map((m, i) => ({ name: m.propertyName, depth: depth(m.target), i })).sort((a, b) => b.depth - a.depth || a.i - b.i);
  return [...new Set(ordered.map((m) => m.name))];
}

function collect(error: ValidationError, parent: string, options: ShapeOptions, problems: string[]): void {
  const index = Array.isArray(error.target) && /^\d+$/.test(error.property);
  const path = index ? `${parent}[${error.property}]` : parent ? `${parent}.${error.property}` : error.property;
  for (const [type, message] of constraintsToReport(error, options)) {
    for (const line of message.split('\n')) problems.push(problem(type, line, error, path, options));
  }
  for (const child of error.children ?? []) collect(child, path, options, problems);
}

/**
 * class-validator checks a property's decorators from the last written to the first; the one problem
 * reported is the first written that failed (`@IsInt` above `@Min` says "integer" for 1.5), or
 * `@IsDefined`'s, checked before all others.
 */
function constraintsToReport(error: ValidationError, options: ShapeOptions): [string, string][] {
  const entries = Object.entries(error.constraints ?? {});
  if (options.allProblems || entries.length <= 1) return entries;
  return [entries.find(([type]) => type === 'isDefined') ?? entries[entries.length - 1]];
}

function problem(type: string, message: string, error: ValidationError, path: string, options: ShapeOptions): string {
  if (type === 'whitelistValidation') {
    const shape = (error.target as object).constructor as Shape<object>;
    return join(path, options.unknownMessage ? options.unknownMessage(error.property, knownProperties(shape), shape) : 'is not a known property');
  }
  if (type === 'nestedValidation' && message.includes('nested property ')) return join(path, 'must be an object');
  if (type === 'unknownValue') return join(path, 'must be an object');
  return message.startsWith(error.property) && /^($|[\s:.[])/.test(message.slice(error.property.length))
    ? path + message.slice(error.property.length)
    : join(path, message);
}

/**
 * `__proto__` and `constructor` as keys (JSON.parse makes them own properties) would replace the
 * prototype or the class of the object built from them, so the key would vanish unchecked.
 */
function reservedNames(value: unknown, path: string): string[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => reservedNames(item, `${path}[${i}]`));
  if (!isPlainObject(value)) return [];
  return Object.keys(value).flatMap((key) => {
    const at = path ? `${path}.${key}` : key;
    return key === '__proto__' || key === 'constructor' ? [`${at} is a reserved name, never a field`] : reservedNames(value[key], at);
  });
}

function join(path: string, message: string): string {
  return path ? `${path} ${message}` : message;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
