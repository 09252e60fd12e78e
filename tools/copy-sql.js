#!/usr/bin/env node
// Part of the build (`npm run build`, the CLI launcher's compile): tsc emits JavaScript only, so the
// SQL files shipped beside the code that runs them (`apps/<service>/src/<feature>/*.sql`, read at
// run time with `readSqlFile`) are copied to the same place under dist/; so is each app's package.json
// (apps/<app>/package.json: its version, which the running service reports in /healthz).
'use strict';
const { copyFileSync, existsSync, mkdirSync, readdirSync } = require('node:fs');
const { dirname, join, relative } = require('node:path');

const SOURCE_FOLDERS = ['apps', 'libs'];
const SKIPPED = new Set(['node_modules', 'dashboard', 'test']);

/** The `.sql` files under `folder`, recursively (test folders and the dashboard left out, as tsc leaves them). */
function sqlFiles(folder) {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sqlFiles(path);
    return entry.name.endsWith('.sql') ? [path] : [];
  });
}

/** Each app's own package.json (its version source), apps/<app>/package.json. */
function appPackageFiles(root) {
  const apps = join(root, 'apps');
  if (!existsSync(apps)) return [];
  return readdirSync(apps)
    .filter((app) => !SKIPPED.has(app))
    .map((app) => join(apps, app, 'package.json'))
    .filter((file) => existsSync(file));
}

/**
 * Copies every SQL file and app package.json of the tree at `root` into `root/dist`; returns how many.
 * With `projects` (folders relative to `root`, `apps/gateway`), only theirs: one project's build.
 */
function copySql(root, projects) {
  const inProjects = (file) => !projects || projects.some((project) => !relative(join(root, project), file).startsWith('..'));
  const files = [...SOURCE_FOLDERS.flatMap((folder) => sqlFiles(join(root, folder))), ...appPackageFiles(root)].filter(inProjects);
  for (const file of files) {
    const target = join(root, 'dist', relative(root, file));
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(file, target);
  }
  return files.length;
}

module.exports = { copySql };
if (require.main === module) copySql(join(__dirname, '..'));
