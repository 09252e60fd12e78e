import { Mode, ProcessName, ReadContext, REQUIRED, SettingsOf, Variable, Variables } from './variables';

/**
 * Reads configuration from the environment once, at start-up, into a typed object. Every bad value
 * is collected, and the process stops with one message naming each variable and what is wrong.
 */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

function modeOf(process: ProcessName): Mode {
  return process === 'standalone' ? 'standalone' : 'distributed';
}

/**
 * One process's reading of its environment: the declared variables it reads (each once, checked,
 * with the defaults of this process and mode), every problem found, and which variables were read.
 */
export class EnvReader {
  readonly context: ReadContext;
  private readonly problems: string[] = [];
  private readonly values = new Map<Variable<unknown>, unknown>();
  private readonly byName = new Map<string, Variable<unknown>>();

  /** `context`: the process reading (its mode follows: standalone, or distributed for the rest) or both. */
  constructor(
    private readonly env: Env,
    context: ProcessName | ReadContext,
  ) {
    this.context = typeof context === 'string' ? { process: context, mode: modeOf(context) } : context;
  }

  /** The variable's value: as set (checked), or its default here; a problem is recorded when it is bad or missing. */
  read<T>(variable: Variable<T>): T {
    if (this.values.has(variable)) return this.values.get(variable) as T;
    const other = this.byName.get(variable.name);
    // Two declarations of one name would be two decisions about one setting.
    if (other && other !== variable) throw new Error(`${variable.name} is declared twice; import the one declaration instead`);
    const value = this.resolve(variable, (message) => this.problems.push(message));
    this.values.set(variable, value);
    this.byName.set(variable.name, variable);
    return value;
  }

  /** Every variable of a table, as a typed object with the table's keys. */
  readAll<V extends Variables>(table: V): SettingsOf<V> {
    return Object.fromEntries(Object.entries(table).map(([key, variable]) => [key, this.read(variable)])) as SettingsOf<V>;
  }

  /** The variables this process has read, in order (the README's configuration table is made from them). */
  variablesRead(): Variable<unknown>[] {
    return [...this.values.keys()];
  }

  /** The trimmed text of a variable that is set and not blank, for the few checks outside declarations. */
  text(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  /** Records a problem found by the caller's own check. */
  problem(message: string): void {
    this.problems.push(message);
  }

  /** Throws ConfigError listing every problem found so far. */
  done(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }

  private resolve<T>(variable: Variable<T>, problem: (message: string) => void): T {
    const text = this.text(variable.name);
    const fallback = variable.fallback.value(this.context, (other) => this.peek(other));
    if (text === undefined) {
      if (fallback !== REQUIRED) return fallback;
      problem(`${variable.name} is required`);
      return variable.placeholder;
    }
    const parsed = variable.parse(text, problem);
    if (parsed !== undefined) return parsed;
    return fallback === REQUIRED ? variable.placeholder : fallback;
  }

  /** Another variable's value for a default made from it: as read here, or as it would be (not recorded, problems ignored). */
  private peek<T>(variable: Variable<T>): T {
    if (this.values.has(variable)) return this.values.get(variable) as T;
    return this.resolve(variable, () => undefined);
  }
}

/** A table's values when nothing is set, as `context` would read them (settings built in code: tests, tools). */
export function defaultsOf<V extends Variables>(table: V, context: ProcessName | ReadContext): SettingsOf<V> {
  return new EnvReader({}, context).readAll(table);
}
