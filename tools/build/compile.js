#!/usr/bin/env node
// One project's build, as Nx runs it (`nx run gateway:build`, `nx affected -t build`; nx.json,
// targetDefaults.build). Each app, lib and bench/ has its own tsconfig (tsconfig.app.json,
// tsconfig.lib.json, ...; all listed in tsconfig.projects.json) naming the projects it imports as
// references, so `tsc -b` compiles a project after what it needs, to the same files `npm run build`
// writes in one program (tsconfig.build.json): dist/ mirrors the source tree
// (dist/apps/<app>/src/main.js), which the Dockerfiles, the CLI launcher, the deployment checks and
// the test harnesses rely on (docs/design/decisions/build.md).
//   node tools/build/compile.js apps/gateway [more project folders]
// After tsc: the `@gen/*` path aliases in the emitted JavaScript become relative requires (what
// tsc-alias does for `npm run build`: Node has no path mapping), and the SQL files and app
// package.json of the projects compiled are copied beside their code (tools/copy-sql.js).
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync, readdirSync, writeFileSync } = require('node:fs');
const { dirname, join, relative, sep } = require('node:path');
const { copySql } = require('../copy-sql');

const ROOT = join(__dirname, '..', '..');
/**
 * Each project folder's tsconfig, from the references of tsconfig.projects.json (the one list of
 * compiled projects): `apps/gateway` → `apps/gateway/tsconfig.app.json`.
 */
function projectConfigs(root) {
  const { references } = JSON.parse(readFileSync(join(root, 'tsconfig.projects.json'), 'utf8'));
  return new Map(references.map(({ path }) => [posixPath(dirname(path)), posixPath(path)]));
}

const posixPath = (path) => join(path).split(sep).join('/').replace(/\/+$/, '');

/** The tsconfig `tsc -b` builds for a project folder (relative to the root); throws when it has none. */
function projectConfig(root, project) {
  const config = projectConfigs(root).get(posixPath(project));
  if (!config) throw new Error(`${project} is not among the projects of tsconfig.projects.json`);
  return config;
}

/** Path alias → the compiled file it names, relative to the root: `@gen/errors` → dist/libs/errors/src/index.js. */
function aliasTargets(root) {
  const { paths } = JSON.parse(readFileSync(join(root, 'tsconfig.base.json'), 'utf8')).compilerOptions;
  return new Map(Object.entries(paths).map(([alias, [target]]) => [alias, join('dist', target.replace(/\.ts$/, '.js'))]));
}

/** The `.js` files under `folder`, recursively. */
function jsFiles(folder) {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return jsFiles(path);
    return entry.name.endsWith('.js') ? [path] : [];
  });
}

/**
 * Rewrites `require("@gen/x")` in the JavaScript under `folder` (absolute) to the relative path of the
 * compiled target (`require("../../../libs/x/src/index.js")`); returns how many files changed.
 */
function rewriteAliases(root, folder) {
  const targets = aliasTargets(root);
  let changed = 0;
  for (const file of jsFiles(folder)) {
    const before = readFileSync(file, 'utf8');
    const after = before.replace(/require\("([^"./][^"]*)"\)/g, (whole, name) => {
      const target = targets.get(name);
      if (!target) return whole;
      const path = relative(dirname(file), join(root, target)).split(sep).join('/');
      return `require("${path.startsWith('.') ? path : `./${path}`}")`;
    });
    if (after !== before) {
      writeFileSync(file, after);
      changed += 1;
    }
  }
  return changed;
}

/**
 * `project` and every project its tsconfig references, directly or not (folders relative to `root`):
 * what `tsc -b` may have compiled for it, so what needs its output finished.
 */
function withReferences(root, project, seen = new Set()) {
  if (seen.has(project)) return seen;
  seen.add(project);
  const config = JSON.parse(readFileSync(join(root, projectConfig(root, project)), 'utf8'));
  for (const reference of config.references ?? []) {
    withReferences(root, posixPath(relative(root, dirname(join(root, project, reference.path)))), seen);
  }
  return seen;
}

/** Runs `tsc -b` on `configs`; false (tsc's output shown) when it fails. */
function tscBuild(root, configs) {
  const tsc = require.resolve(join('typescript', 'bin', 'tsc'), { paths: [root] });
  const result = spawnSync(process.execPath, [tsc, '-b', ...configs], { cwd: root, stdio: 'inherit' });
  return result.status === 0;
}

/** Compiles `projects` (folders relative to `root`) and finishes their output; false when tsc fails. */
function compile(root, projects) {
  if (projects.length === 0) throw new Error('name the project folders to compile (npm run build compiles them all)');
  if (!tscBuild(root, projects.map((project) => projectConfig(root, project)))) return false;
  // tsc -b compiled what the projects reference too, if it was out of date: finish that as well.
  const built = [...new Set(projects.flatMap((project) => [...withReferences(root, posixPath(project))]))];
  for (const project of built) rewriteAliases(root, join(root, 'dist', project));
  copySql(root, built);
  return true;
}

module.exports = { compile, projectConfig, projectConfigs, rewriteAliases, withReferences };
if (require.main === module) process.exit(compile(ROOT, process.argv.slice(2)) ? 0 : 1);
