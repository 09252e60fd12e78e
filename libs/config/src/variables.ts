/**
 * Environment variables as declarations: each has its name, a parser that checks it, its default,
 * and the description the README's configuration table shows. A service's settings file is a table
 * of these (`{ workerConcurrency: int('WORKER_CONCURRENCY', 8, 'jobs one process runs at once', { min: 1 }) }`);
 * EnvReader.readAll() turns the table into a typed object, and records what each process reads, so
 * the README's table is made from the same declarations (libs/config/src/configuration-table.ts).
 */

/** Every process that reads the environment (the README's "used by" column). */
export const PROCESS_NAMES = ['standalone', 'gateway', 'billing', 'generation', 'webhooks', 'cli'] as const;
export type ProcessName = (typeof PROCESS_NAMES)[number];
export type Mode = 'standalone' | 'distributed';

/** Which process reads, and for which deployment (a default may depend on either). */
export interface ReadContext {
  readonly process: ProcessName;
  readonly mode: Mode;
}

/** A default's value when the variable must be set instead. */
export const REQUIRED: unique symbol = Symbol('required');

/** The value of another variable in the same process (for a default made from it: `$PORT`). */
export type ValueOf = <U>(variable: Variable<U>) => U;

/** A default that is not one plain value: it depends on the process, the mode or another variable. */
export class Fallback<T> {
  constructor(
    /** The README's default column (Markdown). */
    readonly text: string,
    readonly value: (context: ReadContext, valueOf: ValueOf) => T | typeof REQUIRED,
  ) {}
}

export interface Variable<T> {
  readonly name: string;
  /** The README's "meaning" column (Markdown). */
  readonly description: string;
  readonly fallback: Fallback<T>;
  /** Checks and converts a value that is set; reports what is wrong (naming the variable) and returns undefined. */
  parse(text: string, problem: (message: string) => void): T | undefined;
  /** What the process carries on with when a required value is missing (it stops at EnvReader.done()). */
  readonly placeholder: T;
}

export type Variables = Readonly<Record<string, Variable<unknown>>>;
export type SettingsOf<V extends Variables> = { -readonly [K in keyof V]: V[K] extends Variable<infer T> ? T : never };

/** A plain default as the README shows it. */
function code(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (value === '' || (Array.isArray(value) && value.length === 0)) return 'empty';
  return `\`${Array.isArray(value) ? value.join(',') : String(value as string | number | boolean)}\``;
}

function fallbackOf<T>(value: T | Fallback<T>): Fallback<T> {
  return value instanceof Fallback ? value : new Fallback(code(value), () => value);
}

/** A default that differs between standalone and distributed mode. */
export function byMode<T>(values: { standalone: T; distributed: T }): Fallback<T> {
  return new Fallback(`${code(values.standalone)} standalone, ${code(values.distributed)} distributed`, (context) => values[context.mode]);
}

/** A default that differs between processes; `others` for every process not named (none: the rest do not read it). */
export function byProcess<T>(values: Partial<Record<ProcessName, T>>, others?: T): Fallback<T> {
  const named = Object.entries(values).map(([process, value]) => `${code(value)} ${process}`);
  const text = [...named, ...(others === undefined ? [] : [`${code(others)} others`])].join(', ');
  return new Fallback(text, (context) => values[context.process] ?? others ?? REQUIRED);
}

/** A default made from other variables (`text` says how, e.g. "`$PUBLIC_BASE_URL/cdn`"). */
export function derived<T>(text: string, value: (valueOf: ValueOf, context: ReadContext) => T): Fallback<T> {
  return new Fallback(text, (context, valueOf) => value(valueOf, context));
}

/** No default: start-up stops while it is unset. */
export function required<T>(text = '**required**'): Fallback<T> {
  return new Fallback<T>(text, () => REQUIRED);
}

/** Unset means "none" (null), which the code reads as `text` says. */
export function unset(text: string): Fallback<null> {
  return new Fallback(text, () => null);
}

function declare<T>(name: string, fallback: T | Fallback<T>, description: string, placeholder: T, parse: Variable<T>['parse']): Variable<T> {
  return { name, description, fallback: fallbackOf(fallback), placeholder, parse };
}

export interface IntRange {
  min?: number;
  max?: number;
  /** The code gets the number times this (e.g. 3600 for a variable in hours read as seconds); the README shows it unscaled. */
  scale?: number;
}

function inRange(name: string, value: number, range: IntRange, shown: string, problem: (message: string) => void): boolean {
  if ((range.min !== undefined && value < range.min) || (range.max !== undefined && value > range.max)) {
    problem(`${name} must be between ${range.min ?? '-inf'} and ${range.max ?? 'inf'} (got ${shown})`);
    return false;
  }
  return true;
}

/** A whole number, within a range. */
export function int(name: string, fallback: number | Fallback<number>, description: string, range: IntRange = {}): Variable<number> {
  const scale = range.scale ?? 1;
  const unscaled = fallbackOf(fallback);
  const scaled = new Fallback(unscaled.text, (context, valueOf) => {
    const value = unscaled.value(context, valueOf);
    return value === REQUIRED ? value : value * scale;
  });
  return declare(name, scaled, description, 0, (text, problem) => {
    const value = Number(text);
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(value)) {
      problem(`${name} must be an integer (got "${text}")`);
      return undefined;
    }
    return inRange(name, value, range, String(value), problem) ? value * scale : undefined;
  });
}

/** A decimal number, within a range. */
export function decimal(name: string, fallback: number, description: string, range: Omit<IntRange, 'scale'> = {}): Variable<number> {
  return declare(name, fallback, description, 0, (text, problem) => {
    const value = Number(text);
    if (!/^-?\d+(\.\d+)?$/.test(text) || !Number.isFinite(value)) {
      problem(`${name} must be a number (got "${text}")`);
      return undefined;
    }
    return inRange(name, value, range, text, problem) ? value : undefined;
  });
}

/** true/false (also 1/0, yes/no, on/off). */
export function flag(name: string, fallback: boolean | Fallback<boolean>, description: string): Variable<boolean> {
  return declare(name, fallback, description, false, (text, problem) => {
    if (['1', 'true', 'yes', 'on'].includes(text.toLowerCase())) return true;
    if (['0', 'false', 'no', 'off'].includes(text.toLowerCase())) return false;
    problem(`${name} must be true or false (got "${text}")`);
    return undefined;
  });
}

/** Any text (a path, a name). */
export function text<D extends string | null = string>(name: string, fallback: D | Fallback<D>, description: string): Variable<string | D> {
  return declare<string | D>(name, fallback, description, '', (value) => value);
}

/** A URL with one of `protocols` (http and https by default); trailing slashes are dropped. */
export function url<D extends string | null = string>(
  name: string,
  fallback: D | Fallback<D>,
  description: string,
  options: { protocols?: readonly string[] } = {},
): Variable<string | D> {
  const protocols = options.protocols ?? ['http:', 'https:'];
  return declare<string | D>(name, fallback, description, '', (value, problem) => {
    let protocol: string;
    try {
      protocol = new URL(value).protocol;
    } catch {
      problem(`${name} must be a URL (got "${value}")`);
      return undefined;
    }
    if (!protocols.includes(protocol)) {
      problem(`${name} must use ${protocols.join(' or ')} (got "${protocol}")`);
      return undefined;
    }
    return value.replace(/\/+$/, '');
  });
}

/** One of a few words. */
export function choice<T extends string, D extends T | null = T>(
  name: string,
  values: readonly T[],
  fallback: D | Fallback<D>,
  description: string,
): Variable<T | D> {
  return declare<T | D>(name, fallback, description, values[0], (value, problem) => {
    if ((values as readonly string[]).includes(value)) return value as T;
    problem(`${name} must be one of ${values.join(', ')} (got "${value}")`);
    return undefined;
  });
}

/** A comma-separated list (empty by default); `check` throws on a bad list, with a message that says why. */
export function list(name: string, description: string, check: (items: string[]) => void = () => undefined): Variable<string[]> {
  return declare<string[]>(name, [], description, [], (value, problem) => {
    const items = value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
    try {
      check(items);
    } catch (error) {
      problem(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
    return items;
  });
}

/** A value with a parser of its own (`parse` calls `problem` with a message naming the variable). */
export function custom<T>(name: string, fallback: T | Fallback<T>, description: string, placeholder: T, parse: Variable<T>['parse']): Variable<T> {
  return declare(name, fallback, description, placeholder, parse);
}
