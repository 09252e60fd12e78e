import { ConfigError, defaultsOf, EnvReader } from './env';
import { byMode, byProcess, choice, decimal, derived, flag, int, list, ProcessName, ReadContext, required, text, url, Variables } from './variables';

const PORT = int('TEST_PORT', 3000, 'a port', { min: 0, max: 65535 });
const TABLE = {
  port: PORT,
  hours: int('TEST_HOURS', 2, 'hours, read as seconds', { min: 1, max: 10, scale: 3600 }),
  scale: decimal('TEST_SCALE', 1, 'a factor', { min: 0 }),
  on: flag('TEST_ON', byMode({ standalone: true, distributed: false }), 'a switch'),
  delay: int('TEST_DELAY', byProcess({ gateway: 2_000 }, 0), 'a delay'),
  base: url('TEST_BASE', derived('`http://localhost:$TEST_PORT`', (valueOf) => `http://localhost:${valueOf(PORT)}`), 'a URL'),
  level: choice('TEST_LEVEL', ['info', 'debug'] as const, 'info', 'a level'),
  path: text('TEST_PATH', '.data', 'a folder'),
  hosts: list('TEST_HOSTS', 'a list', (items) => {
    if (items.includes('bad')) throw new Error('"bad" is not a host');
  }),
};

/** Reads `table` from `env` as `context`, and throws ConfigError as start-up would. */
function read<T extends Variables>(env: Record<string, string>, table: T, context: ProcessName | ReadContext = 'gateway') {
  const reader = new EnvReader(env, context);
  const values = reader.readAll(table);
  reader.done();
  return values;
}

function problems(env: Record<string, string>, table: Variables = TABLE, context: ProcessName | ReadContext = 'gateway'): string[] {
  try {
    read(env, table, context);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('declared variables', () => {
  it('read as their defaults when unset or blank, with the defaults of the process and mode', () => {
    expect(read({ TEST_PATH: '  ' }, TABLE)).toEqual({
      port: 3000,
      hours: 7200,
      scale: 1,
      on: false,
      delay: 2000,
      base: 'http://localhost:3000',
      level: 'info',
      path: '.data',
      hosts: [],
    });
    expect(read({}, TABLE, 'standalone')).toMatchObject({ on: true, delay: 0 });
    expect(read({}, TABLE, { process: 'cli', mode: 'distributed' })).toMatchObject({ on: false, delay: 0 });
  });

  it('parse what is set: trimmed, scaled, URLs without their trailing slash, derived defaults from the values read', () => {
    expect(
      read({ TEST_PORT: ' 8080 ', TEST_HOURS: '3', TEST_SCALE: '0.5', TEST_ON: 'yes', TEST_LEVEL: 'debug', TEST_HOSTS: 'a, b,,c' }, TABLE),
    ).toMatchObject({ port: 8080, hours: 10_800, scale: 0.5, on: true, base: 'http://localhost:8080', level: 'debug', hosts: ['a', 'b', 'c'] });
    expect(read({ TEST_BASE: 'https://api.example.com/' }, TABLE).base).toBe('https://api.example.com');
  });

  it('stop start-up with one message naming every bad variable and what is wrong', () => {
    expect(
      problems({
        TEST_PORT: 'eighty',
        TEST_HOURS: '11',
        TEST_SCALE: '-1',
        TEST_ON: 'maybe',
        TEST_BASE: 'ftp://x',
        TEST_LEVEL: 'loud',
        TEST_HOSTS: 'a,bad',
      }),
    ).toEqual([
      'TEST_PORT must be an integer (got "eighty")',
      'TEST_HOURS must be between 1 and 10 (got 11)',
      'TEST_SCALE must be between 0 and inf (got -1)',
      'TEST_ON must be true or false (got "maybe")',
      'TEST_BASE must use http: or https: (got "ftp:")',
      'TEST_LEVEL must be one of info, debug (got "loud")',
      'TEST_HOSTS: "bad" is not a host',
    ]);
    expect(problems({ TEST_SCALE: '1e3', TEST_BASE: 'not a url' })).toEqual([
      'TEST_SCALE must be a number (got "1e3")',
      'TEST_BASE must be a URL (got "not a url")',
    ]);
    expect(() => read({ TEST_ON: 'maybe' }, TABLE)).toThrow(/Invalid configuration:\n {2}- TEST_ON must be true or false/);
  });

  it('a required variable is reported by name when unset; a bad value falls back to its default until start-up stops', () => {
    const needed = { key: text('TEST_KEY', required<string>(), 'a key') };
    expect(problems({}, needed)).toEqual(['TEST_KEY is required']);
    const reader = new EnvReader({ TEST_PORT: 'x' }, 'gateway');
    expect(reader.read(PORT)).toBe(3000);
    expect(() => reader.done()).toThrow(ConfigError);
  });

  it('records what a process reads, each once and in order, but not what a default only looked at', () => {
    const reader = new EnvReader({}, 'generation');
    reader.read(TABLE.base);
    reader.read(TABLE.level);
    reader.read(TABLE.base);
    expect(reader.variablesRead().map((v) => v.name)).toEqual(['TEST_BASE', 'TEST_LEVEL']);
  });

  it('refuses a second declaration of a name already read (one decision, one place)', () => {
    const reader = new EnvReader({}, 'gateway');
    reader.read(PORT);
    expect(() => reader.read(int('TEST_PORT', 1, 'the same name again'))).toThrow(/TEST_PORT is declared twice/);
  });

  it('give a table of defaults for settings built in code', () => {
    expect(defaultsOf({ delay: TABLE.delay, hours: TABLE.hours }, 'gateway')).toEqual({ delay: 2000, hours: 7200 });
  });

  it('describe their defaults for the README', () => {
    expect([TABLE.port, TABLE.on, TABLE.delay, TABLE.base, TABLE.path, TABLE.hosts].map((v) => v.fallback.text)).toEqual([
      '`3000`',
      '`true` standalone, `false` distributed',
      '`2000` gateway, `0` others',
      '`http://localhost:$TEST_PORT`',
      '`.data`',
      'empty',
    ]);
  });
});
