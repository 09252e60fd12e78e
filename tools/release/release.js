#!/usr/bin/env node
// `npm run release -- <project> <specifier>`: cuts one project's release (docs/operations/upgrade.md,
// "Cutting a release"). Projects: the four services, cli, sdk, sdk-python; specifier: patch, minor,
// major or an exact version.
// 1. `nx release version <specifier> --projects <project>` writes the new version into the project's
//    manifest (tools/release/version-actions.js);
// 2. for a service, its manifests follow: the app.kubernetes.io/version label in k8s/base/<service>.yaml
//    and its image tag in the dev overlay (tools/ops/check-k8s.mjs checks both against the version);
//    the project's CHANGELOG.md: its "## Unreleased" section becomes "## <version> (<date>)" under a
//    new, empty Unreleased (the history is written by hand as changes land: the commit messages are
//    not Conventional Commits, so `nx release changelog` would only say "version bump only");
// 3. a commit "Release <project> <version>" of those files, then the release appended to
//    release/releases.json ({ project, version, commit, contract, date }; contract for services: the
//    MESSAGE_CONTRACT_VERSION they speak) and committed. Past entries are never edited.
// With --dry-run: nx's dry run and the entry that would be appended; nothing is written.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const SERVICES = ['gateway', 'billing', 'generation', 'webhooks'];
/** Each released project's folder (its manifest and CHANGELOG.md). */
const PROJECTS = { gateway: 'apps/gateway', billing: 'apps/billing', generation: 'apps/generation', webhooks: 'apps/webhooks', cli: 'apps/cli', sdk: 'libs/sdk', 'sdk-python': 'sdk/python' };
const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?$/;

/** -1, 0 or 1 as semver orders a and b (pre-release tags sort before their release, otherwise not compared). */
function compareVersions(a, b) {
  const [pa, pb] = [SEMVER.exec(a), SEMVER.exec(b)];
  for (let i = 1; i <= 3; i++) if (Number(pa[i]) !== Number(pb[i])) return Number(pa[i]) < Number(pb[i]) ? -1 : 1;
  const [ra, rb] = [a.includes('-'), b.includes('-')];
  return ra === rb ? 0 : ra ? -1 : 1;
}

/**
 * The release record with one release appended (a new object; the record given is not changed).
 * Refuses an unknown project, a malformed version, commit or date, a service without its contract
 * version, and a version not above the project's newest recorded one.
 */
function appendRelease(record, entry) {
  const problems = [];
  if (!(entry.project in PROJECTS)) problems.push(`unknown project "${entry.project}" (one of ${Object.keys(PROJECTS).join(', ')})`);
  if (!SEMVER.test(entry.version ?? '')) problems.push(`version "${entry.version}" is not a semantic version`);
  if (!/^[0-9a-f]{40}$/.test(entry.commit ?? '')) problems.push(`commit "${entry.commit}" is not a full commit id`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(entry.date ?? '')) problems.push(`date "${entry.date}" is not YYYY-MM-DD`);
  if (SERVICES.includes(entry.project) && !SEMVER.test(entry.contract ?? '')) problems.push(`a service's release names its message contract version (contract), got "${entry.contract}"`);
  const previous = record.releases.filter((r) => r.project === entry.project).pop();
  if (previous && SEMVER.test(entry.version ?? '') && compareVersions(entry.version, previous.version) <= 0) {
    problems.push(`${entry.project} ${entry.version} is not newer than its last release ${previous.version}`);
  }
  if (problems.length) throw new Error(`cannot record the release: ${problems.join('; ')}`);
  const { project, version, commit, contract, date } = entry;
  const added = contract === undefined || !SERVICES.includes(project) ? { project, version, commit, date } : { project, version, commit, contract, date };
  return { ...record, releases: [...record.releases, added] };
}

/** release/releases.json's text in its layout: one line per release. */
function formatRecord(record) {
  const line = (o) => `{ ${Object.entries(o).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')} }`;
  const head = Object.entries(record).filter(([k]) => k !== 'releases').map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`).join('');
  return `{\n${head}  "releases": [\n${record.releases.map((r) => `    ${line(r)}`).join(',\n')}\n  ]\n}\n`;
}

/** A CHANGELOG's "## Unreleased" section renamed to the version, under a new empty Unreleased section. */
function promoteUnreleased(changelog, version, date) {
  if (!/^## Unreleased\s*$/m.test(changelog)) throw new Error('the CHANGELOG has no "## Unreleased" section');
  return changelog.replace(/^## Unreleased[ \t]*$/m, `## Unreleased\n\n## ${version} (${date})`);
}

/** k8s/base/<service>.yaml with its version label set; the dev overlay with the service's image tag set. */
function withManifestVersion(baseYaml, version) {
  return baseYaml.replace(/(app\.kubernetes\.io\/version: )"[^"]*"/g, `$1"${version}"`);
}
function withDevImageTag(kustomization, service, version) {
  return kustomization.replace(new RegExp(`(- name: generation-service-${service}\\n\\s+newTag: )\\S+`), `$1${version}`);
}

/** The message contract version the services speak (libs/contracts). */
function contractVersion(root) {
  const text = readFileSync(join(root, 'libs', 'contracts', 'src', 'messages', 'contract-version.ts'), 'utf8');
  return /MESSAGE_CONTRACT_VERSION = '([^']+)'/.exec(text)?.[1];
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: 'utf8', stdio: options.capture ? 'pipe' : 'inherit', env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' } });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed${result.stderr ? `: ${result.stderr.trim()}` : ''}`);
  return (result.stdout ?? '').trim();
}

function versionOf(project) {
  const folder = join(ROOT, PROJECTS[project]);
  if (existsSync(join(folder, 'package.json'))) return JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')).version;
  return /^version\s*=\s*"([^"]+)"/m.exec(readFileSync(join(folder, 'pyproject.toml'), 'utf8'))?.[1];
}

function main(argv) {
  const dryRun = argv.includes('--dry-run');
  const [project, specifier] = argv.filter((a) => a !== '--dry-run');
  if (!(project in PROJECTS) || !specifier) throw new Error(`usage: npm run release -- <${Object.keys(PROJECTS).join('|')}> <patch|minor|major|x.y.z> [--dry-run]`);
  if (!dryRun && run('git', ['status', '--porcelain'], { capture: true })) throw new Error('the working tree has changes: commit or stash them first');
  run(process.execPath, [require.resolve('nx/bin/nx.js'), 'release', 'version', specifier, '--projects', project, ...(dryRun ? ['--dry-run'] : [])]);
  const date = new Date().toISOString().slice(0, 10);
  const file = join(ROOT, 'release', 'releases.json');
  const record = JSON.parse(readFileSync(file, 'utf8'));
  if (dryRun) {
    const entry = { project, version: '(the new version)', commit: '(the release commit)', contract: SERVICES.includes(project) ? contractVersion(ROOT) : undefined, date };
    console.log(`would append to release/releases.json: ${JSON.stringify(entry)}`);
    return;
  }
  const version = versionOf(project);
  const changelog = join(ROOT, PROJECTS[project], 'CHANGELOG.md');
  const changed = [join(PROJECTS[project], existsSync(join(ROOT, PROJECTS[project], 'package.json')) ? 'package.json' : 'pyproject.toml')];
  if (project === 'sdk-python') changed.push('sdk/python/generation_service/_version.py');
  if (SERVICES.includes(project)) {
    const manifests = [
      [`k8s/overlays/dev/kustomization.yaml`, (t) => withDevImageTag(t, project, version)],
      [`k8s/base/${project}.yaml`, (t) => withManifestVersion(t, version)],
    ];
    for (const [file, change] of manifests) {
      writeFileSync(join(ROOT, file), change(readFileSync(join(ROOT, file), 'utf8')));
      changed.push(file);
    }
  }
  if (existsSync(changelog)) {
    writeFileSync(changelog, promoteUnreleased(readFileSync(changelog, 'utf8'), version, date));
    changed.push(join(PROJECTS[project], 'CHANGELOG.md'));
  }
  run('git', ['add', '--', ...changed]);
  run('git', ['commit', '-q', '-m', `Release ${project} ${version}`]);
  const commit = run('git', ['rev-parse', 'HEAD'], { capture: true });
  writeFileSync(file, formatRecord(appendRelease(record, { project, version, commit, contract: contractVersion(ROOT), date })));
  run('git', ['add', '--', 'release/releases.json']);
  run('git', ['commit', '-q', '-m', `Record the release of ${project} ${version} (${commit.slice(0, 7)}) in release/releases.json`]);
  console.log(`released ${project} ${version} at ${commit}`);
}

module.exports = { appendRelease, formatRecord, promoteUnreleased, compareVersions, contractVersion, withManifestVersion, withDevImageTag, PROJECTS };
if (require.main === module) {
  try {
    main(process.argv.slice(2));
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
