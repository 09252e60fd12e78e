
/** DI token of the engines by name (Map<string, Engine>): built-in ones plus configured remote ones. */
export const ENGINES = Symbol('ENGINES');
