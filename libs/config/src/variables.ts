import { ValidateBy } from 'class-validator';
import { between, compileCheck, rule, VariableCheck } from './variable-check';

/**
 * Environment variables as declarations: each has its name, a check compiled into class-validator
 * rules (variable-check.ts: the one way input is validated, as for HTTP bodies and catalogue files),
 * its default, and the description the README's configuration table shows. A service's settings file is a table
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

/** A variable whose check is compiled into class-validator (`variable-check.ts`). */
function declare<T>(name: string, fallback: T | Fallback<T>, description: string, placeholder: T, check: VariableCheck<T>): Variable<T> {
  return { name, description, fallback: fallbackOf(fallback), placeholder, parse: compileCheck(name, check) };
}

export interface IntRange {
  min?: number;
  max?: number;
  /** The code gets the number times this (e.g. 3600 for a variable in hours read as seconds); the README shows it unscaled. */
  scale?: number;
}

const isNumber = (value: unknown) => typeof value === 'number';

/** A whole number, within a range. */
export function int(name: string, fallback: number | Fallback<number>, description: string, range: IntRange = {}): Variable<number> {
  const scale = range.scale ?? 1;
  const unscaled = fallbackOf(fallback);
  const scaled = new Fallback(unscaled.text, (context, valueOf) => {
    const value = unscaled.value(context, valueOf);
    return value === REQUIRED ? value : value * scale;
  });
  return declare(name, scaled, description, 0, {
    read: (text) => (/^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text),
    rules: [rule('int', isNumber, 'must be an integer (got "$value")'), between(range)],
    finish: (value: number) => value * scale,
  });
}

/** A decimal number, within a range. */
export function decimal(name: string, fallback: number, description: string, range: Omit<IntRange, 'scale'> = {}): Variable<number> {
  return declare(name, fallback, description, 0, {
    read: (text) => (/^-?\d+(\.\d+)?$/.test(text) && Number.isFinite(Number(text)) ? Number(text) : text),
    rules: [rule('number', isNumber, 'must be a number (got "$value")'), between(range)],
  });
}

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

/** true/false (also 1/0, yes/no, on/off). */
export function flag(name: string, fallback: boolean | Fallback<boolean>, description: string): Variable<boolean> {
  return declare(name, fallback, description, false, {
    read: (text) => (TRUE.includes(text.toLowerCase()) ? true : FALSE.includes(text.toLowerCase()) ? false : text),
    rules: [rule('flag', (value) => typeof value === 'boolean', 'must be true or false (got "$value")')],
  });
}

/** Any text (a path, a name). */
export function text<D extends string | null = string>(name: string, fallback: D | Fallback<D>, description: string): Variable<string | D> {
  return declare<string | D>(name, fallback, description, '', {});
}

/** A URL with one of `protocols` (http and https by default); trailing slashes are dropped. */
export function url<D extends string | null = string>(
  name: string,
  fallback: D | Fallback<D>,
  description: string,
  options: { protocols?: readonly string[] } = {},
): Variable<string | D> {
  const protocols = options.protocols ?? ['http:', 'https:'];
  const protocolOf = (value: unknown) => {
    try {
      return new URL(value as string).protocol;
    } catch {
      return null;
    }
  };
  return declare<string | D>(name, fallback, description, '', {
    rules: [
      rule('url', (value) => protocolOf(value) !== null, 'must be a URL (got "$value")'),
      ValidateBy({
        name: 'protocol',
        validator: {
          validate: (value) => protocols.includes(protocolOf(value) as string),
          defaultMessage: (args) => `$property must use ${protocols.join(' or ')} (got "${protocolOf(args?.value)}")`,
        },
      }),
    ],
    finish: (value: string) => value.replace(/\/+$/, ''),
  });
}

/** One of a few words. */
export function choice<T extends string, D extends T | null = T>(
  name: string,
  values: readonly T[],
  fallback: D | Fallback<D>,
  description: string,
): Variable<T | D> {
  return declare<T | D>(name, fallback, description, values[0], {
    rules: [rule('choice', (value) => (values as readonly unknown[]).includes(value), `must be one of ${values.join(', ')} (got "$value")`)],
  });
}

/** A comma-separated list (empty by default); `check` throws on a bad list, with a message that says why. */
export function list(name: string, description: string, check: (items: string[]) => void = () => undefined): Variable<string[]> {
  const problemOf = (items: string[]) => {
    try {
      check(items);
      return null;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
  return declare<string[]>(name, [], description, [], {
    read: (text) =>
      text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0),
    rules: [
      ValidateBy({
        name: 'list',
        validator: { validate: (items) => problemOf(items as string[]) === null, defaultMessage: (args) => `$property: ${problemOf(args?.value as string[])}` },
      }),
    ],
  });
}

/** Text matching `pattern`; `message` says what it must be (`must be a subject token followed by a dot`). */
export function matching(name: string, fallback: string, description: string, pattern: RegExp, message: string): Variable<string> {
  return declare(name, fallback, description, fallback, {
    rules: [rule('matching', (value) => typeof value === 'string' && pattern.test(value), `${message} (got "$value")`)],
  });
}

/** What a declaration's own parser refused, carried to the rule that reports it. */
class Refused {
  constructor(readonly problems: string[]) {}
}

/**
 * A value with a parser of its own, for a reading that is the point (a key decoded, a list of ports):
 * `parse` reads the text and reports each problem, naming the variable; the problems fail its rule.
 */
export function custom<T>(name: string, fallback: T | Fallback<T>, description: string, placeholder: T, parse: Variable<T>['parse']): Variable<T> {
  return declare(name, fallback, description, placeholder, {
    read: (text) => {
      const problems: string[] = [];
      const value = parse(text, (message) => problems.push(message));
      return problems.length > 0 || value === undefined ? new Refused(problems) : value;
    },
    rules: [
      ValidateBy({
        name: 'parsed',
        validator: { validate: (value) => !(value instanceof Refused), defaultMessage: (args) => (args?.value as Refused).problems.join('\n') || '$property is not valid' },
      }),
    ],
  });
}
