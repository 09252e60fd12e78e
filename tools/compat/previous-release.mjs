#!/usr/bin/env node
// Builds the previous release of every service from the commit release/releases.json records for it,
// so the compatibility suite (test/compat) and bench:rolling can run it beside HEAD:
//   git worktree add --detach tmp/releases/<commit> <commit>; npm ci; npm run build
// A release's build is kept (keyed by its commit: the same commit always builds the same code), so a
// second run only checks it; COMPAT_REBUILD=1 builds it again. A commit this clone does not have fails
// the run in one line: the suite never skips a combination.
// COMPAT_RELEASES_FILE names another record (to try the suite against an older commit, say).
// Usage: node tools/compat/previous-release.mjs [--json]   (prints each service's release and folder)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SERVICES = ['gateway', 'billing', 'generation', 'webhooks'];
const RELEASES_DIR = process.env.COMPAT_RELEASES_DIR ?? join(ROOT, 'tmp', 'releases');

/** The newest recorded release of each service: { gateway: { version, commit, contract }, ... }. */
export function previousReleases(root = ROOT) {
  const file = process.env.COMPAT_RELEASES_FILE ?? join(root, 'release', 'releases.json');
  const { releases } = JSON.parse(readFileSync(file, 'utf8'));
  const newest = {};
  for (const release of releases) if (SERVICES.includes(release.project)) newest[release.project] = release;
  for (const service of SERVICES) {
    if (!newest[service]) throw new Error(`${file} records no release of ${service}`);
  }
  return newest;
}

/** The folder a release's build lives in. */
export function releaseFolder(commit) {
  return join(RELEASES_DIR, commit);
}

function run(command, args, cwd, quiet = false) {
  execFileSync(command, args, { cwd, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit', env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' } });
}

/** Checks out and builds one commit (once); returns its folder. */
export function buildRelease(commit, log = (line) => process.stderr.write(`${line}\n`)) {
  const folder = releaseFolder(commit);
  const marker = join(folder, '.release-built');
  if (existsSync(marker) && process.env.COMPAT_REBUILD !== '1') {
    if (readFileSync(marker, 'utf8').trim() === commit) return folder;
  }
  try {
    execFileSync('git', ['cat-file', '-e', `${commit}^{commit}`], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    throw new Error(`commit ${commit} (a release in release/releases.json) is not in this clone: fetch the full history (git fetch --unshallow)`);
  }
  log(`building the release at ${commit.slice(0, 12)} in ${folder}`);
  rmSync(folder, { recursive: true, force: true });
  run('git', ['worktree', 'prune'], ROOT, true);
  mkdirSync(dirname(folder), { recursive: true });
  run('git', ['worktree', 'add', '--force', '--detach', folder, commit], ROOT, true);
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], folder, true);
  run('npm', ['run', '--silent', 'build'], folder, true);
  for (const service of SERVICES) {
    const main = join(folder, 'dist', 'apps', service, 'src', 'main.js');
    if (!existsSync(main)) throw new Error(`the build of ${commit} has no ${main}`);
  }
  writeFileSync(marker, `${commit}\n`);
  return folder;
}

/** Builds every service's previous release; returns { service: { version, commit, folder } }. */
export function preparePreviousReleases(log) {
  const prepared = {};
  for (const [service, release] of Object.entries(previousReleases())) {
    prepared[service] = { version: release.version, commit: release.commit, contract: release.contract, folder: buildRelease(release.commit, log) };
  }
  return prepared;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const prepared = preparePreviousReleases();
  if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify(prepared, null, 2)}\n`);
  else {
    for (const [service, p] of Object.entries(prepared)) process.stdout.write(`${service.padEnd(10)} ${p.version.padEnd(8)} ${p.commit.slice(0, 12)}  ${p.folder}\n`);
    process.stdout.write(`ready in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  }
}
