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

type Env = Record<string, string | undefined>;

export class EnvReader {
  private readonly problems: string[] = [];

  constructor(private readonly env: Env = process.env) {}

  string(name: string, fallback?: string): string {
    const value = this.raw(name);
    if (value !== undefined) return value;
    if (fallback !== undefined) return fallback;
    this.problems.push(`${name} is required`);
    return '';
  }

  optionalString(name: string): string | undefined {
    return this.raw(name);
  }

  int(name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(parsed)) {
      this.problems.push(`${name} must be an integer (got "${value}")`);
      return fallback;
    }
    if ((range.min !== undefined && parsed < range.min) || (range.max !== undefined && parsed > range.max)) {
      this.problems.push(`${name} must be between ${range.min ?? '-inf'} and ${range.max ?? 'inf'} (got ${parsed})`);
      return fallback;
    }
    return parsed;
  }

  bool(name: string, fallback: boolean): boolean {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(value.toLowerCase())) return true;
    if (['0', 'false', 'no', 'off'].includes(value.toLowerCase())) return false;
    this.problems.push(`${name} must be true or false (got "${value}")`);
    return fallback;
  }

  url(name: string, fallback?: string, protocols: string[] = ['http:', 'https:']): string {
    const value = this.raw(name) ?? fallback;
    if (value === undefined) {
      this.problems.push(`${name} is required`);
      return '';
    }
    try {
      const parsed = new URL(value);
      if (!protocols.includes(parsed.protocol)) {
        this.problems.push(`${name} must use ${protocols.join(' or ')} (got "${parsed.protocol}")`);
      }
    } catch {
      this.problems.push(`${name} must be a URL (got "${value}")`);
    }
    return value.replace(/\/+$/, '');
  }

  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if ((values as readonly string[]).includes(value)) return value as T;
    this.problems.push(`${name} must be one of ${values.join(', ')} (got "${value}")`);
    return fallback;
  }

  list(name: string, fallback: string[] = []): string[] {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    return value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0);
  }

  /** Records a problem found by the caller's own check. */
  problem(message: string): void {
    this.problems.push(message);
  }

  /** Throws ConfigError listing every problem found so far. */
  done(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }
}
