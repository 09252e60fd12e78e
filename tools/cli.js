#!/usr/bin/env node
// `npm run cli -- <command>`: the operator CLI, at once on a built tree. When a source it is compiled
// from (apps/ but the dashboard, libs/, the TypeScript settings) is newer than the build, it compiles
// the services first (tsc and the SQL files, as `npm run build` does, without the dashboard: the CLI does not use it),
// then runs. The CLI itself is dist/apps/cli/src/main.js (what containers run).
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { copySql } = require('./copy-sql');

const ROOT = join(__dirname, '..');
const MAIN = join('dist', 'apps', 'cli', 'src', 'main.js');
/** Touched after each compile here: a compile that changed no output still counts as one. */
const STAMP = join('dist', '.cli-compiled');
const SOURCE_FOLDERS = ['apps', 'libs'];
const SOURCE_FILES = ['tsconfig.base.json', 'tsconfig.build.json', 'package-lock.json'];
const SKIPPED = new Set(['node_modules', 'dashboard']);

/** The newest modification time (ms) of the files under `folder` whose names pass `keep`. */
function newest(folder, keep) {
  let latest = 0;
  if (!existsSync(folder)) return latest;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED.has(entry.name)) latest = Math.max(latest, newest(path, keep));
    } else if (keep(entry.name)) {
      latest = Math.max(latest, statSync(path).mtimeMs);
    }
  }
  return latest;
}

/**
 * Whether the compiled CLI is at least as new as everything it is compiled from, in the tree at
 * `root`: 'missing' (never built), 'stale' (a source changed since) or 'fresh'.
 */
function buildState(root) {
  if (!existsSync(join(root, MAIN))) return 'missing';
  const isSource = (name) => (name.endsWith('.ts') && !name.endsWith('.spec.ts')) || name.endsWith('.sql');
  const sources = Math.max(
    ...SOURCE_FOLDERS.map((folder) => newest(join(root, folder), isSource)),
    ...SOURCE_FILES.map((file) => (existsSync(join(root, file)) ? statSync(join(root, file)).mtimeMs : 0)),
  );
  const stamp = existsSync(join(root, STAMP)) ? statSync(join(root, STAMP)).mtimeMs : 0;
  const built = Math.max(stamp, newest(join(root, 'dist', 'apps'), (name) => name.endsWith('.js')), newest(join(root, 'dist', 'libs'), (name) => name.endsWith('.js')));
  return sources > built ? 'stale' : 'fresh';
}

/** Compiles the services as `npm run build` does, minus the dashboard; false (with tsc's output shown) on failure. */
function compile(root) {
  for (const [tool, script] of [
    ['tsc', join('typescript', 'bin', 'tsc')],
    ['tsc-alias', join('tsc-alias', 'dist', 'bin', 'index.js')],
  ]) {
    const result = spawnSync(process.execPath, [require.resolve(script, { paths: [root] }), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) {
      process.stderr.write(`${tool} failed (exit ${result.status}): the CLI was not run.\n`);
      return false;
    }
  }
  copySql(root);
  const stamp = join(root, STAMP);
  if (!existsSync(stamp)) writeFileSync(stamp, '');
  const now = new Date();
  utimesSync(stamp, now, now);
  return true;
}

function main() {
  const state = buildState(ROOT);
  if (state !== 'fresh') {
    process.stderr.write(state === 'missing' ? 'Compiling the services (first run)...\n' : 'Sources changed since the last build: compiling the services...\n');
    if (!compile(ROOT)) process.exit(3);
  }
  // The CLI reads its arguments from process.argv.slice(2), which are this script's.
  require(join(ROOT, MAIN));
}

module.exports = { buildState, STAMP, MAIN };
if (require.main === module) main();
