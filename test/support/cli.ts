import { spawnSync, SpawnSyncReturns } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (with --json), else undefined. */
  json: any;
}

/** Runs the built operator CLI (dist/) against a database, as an operator would; returns its exit code and output. */
export function runCli(databaseUrl: string, ...args: string[]): CliResult {
  return runCliWith({ DATABASE_URL: databaseUrl }, ...args);
}

/** The same with the operator's environment given (DATABASE_URL, NATS_URL, ...). */
export function runCliWith(env: Record<string, string>, ...args: string[]): CliResult {
  return runCliFrom(ROOT, env, ...args);
}

/** The same from another checkout's build (the compatibility suite: the CLI of the gateway's release). */
export function runCliFrom(root: string, env: Record<string, string>, ...args: string[]): CliResult {
  const result = spawnSync(process.execPath, [join(root, 'dist', 'apps', 'cli', 'src', 'main.js'), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return cliResult(result);
}

/** A finished CLI run (any launcher: the built main, `npm run cli`) as a CliResult. */
export function cliResult(result: SpawnSyncReturns<string>): CliResult {
  let json: unknown;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, json };
}
