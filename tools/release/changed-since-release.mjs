#!/usr/bin/env node
// Which released projects changed since their newest release (release/releases.json), as Nx's project
// graph sees it (`nx show projects --affected`: a project changed, or one it depends on did), and what
// each one's CHANGELOG says under "Unreleased". CI prints it after the build; a release manager reads
// it before `npm run release`. It fails only when Nx cannot answer (a base commit missing from the clone).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const { releases } = JSON.parse(readFileSync(join(root, 'release', 'releases.json'), 'utf8'));
const newest = new Map();
for (const release of releases) newest.set(release.project, release);

const env = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' };
const affectedSince = new Map();
function affected(commit) {
  if (!affectedSince.has(commit)) {
    const out = execFileSync('npx', ['nx', 'show', 'projects', '--affected', `--base=${commit}`, '--head=HEAD', '--json'], { cwd: root, env, encoding: 'utf8' });
    affectedSince.set(commit, new Set(JSON.parse(out)));
  }
  return affectedSince.get(commit);
}

const CHANGELOGS = { sdk: 'libs/sdk/CHANGELOG.md', 'sdk-python': 'sdk/python/CHANGELOG.md' };
/** The lines of the CHANGELOG's "Unreleased" section that start an entry. */
function unreleasedEntries(project) {
  const file = join(root, CHANGELOGS[project] ?? `apps/${project}/CHANGELOG.md`);
  if (!existsSync(file)) return null;
  const text = readFileSync(file, 'utf8');
  const section = text.split(/^## /m).find((part) => part.startsWith('Unreleased'));
  return section ? section.split('\n').filter((line) => line.startsWith('- ')).length : 0;
}

const rows = [...newest.values()].map((release) => {
  const changed = affected(release.commit).has(release.project);
  return { project: release.project, release: `${release.version} (${release.commit.slice(0, 8)})`, changed, entries: unreleasedEntries(release.project) };
});
const width = Math.max(...rows.map((r) => r.project.length));
for (const row of rows) {
  const entries = row.entries === null ? 'no CHANGELOG' : `${row.entries} Unreleased entr${row.entries === 1 ? 'y' : 'ies'}`;
  console.log(`${row.project.padEnd(width)}  since ${row.release}: ${row.changed ? 'changed' : 'unchanged'}; ${entries}`);
}
