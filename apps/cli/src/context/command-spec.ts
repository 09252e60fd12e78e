import type { CliDatabase } from './cli-database';
import type { CliDatabaseSettings } from './cli.settings';

/** Exit codes (README, "Operator CLI"). */
export const EXIT = { ok: 0, refused: 1, usage: 2, failed: 3 } as const;

/** A command's options by their long name (`older-than`, not `olderThan`): a string, true for a flag, or absent. */
export type Options = Record<string, string | boolean | undefined>;

/** Writes the command's result: the human text, or the data as JSON with --json. */
export type Out = (human: string, data: unknown) => void;

export interface OptionSpec {
  description: string;
  required?: boolean;
  flag?: boolean;
}

export interface CommandSpec {
  summary: string;
  options: Record<string, OptionSpec>;
  /**
   * Whether the command makes sense on an empty database, so that it may create the standalone data
   * folder when there is none. Every other command refuses to create one (it would only find nothing).
   */
  mayCreateData?: true;
  /** Runs before the database is opened (migrate --create-database creates it). */
  prepare?: (options: Options, where: CliDatabaseSettings) => Promise<void>;
  run: (options: Options, context: { database: CliDatabase; out: Out }) => Promise<void>;
}

/** The commands under one word (`keys create`, `keys list`, ...); a group with one command named '' is the word itself (`migrate`). */
export interface CommandGroup {
  name: string;
  summary: string;
  commands: Record<string, CommandSpec>;
}

/** A string option's value (undefined when absent). */
export function str(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

/** A required string option's value: the parser has refused the command already when it is absent. */
export function req(options: Options, name: string): string {
  return str(options, name) as string;
}
