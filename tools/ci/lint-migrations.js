#!/usr/bin/env node
// `npm run lint:migrations` (CI, after the build): squawk on the SQL of every migration that is newer
// than the previous release. Released migrations have run everywhere already, so only the new ones
// can still be changed, and they are what a neighbour one release older must survive
// (CONTRIBUTING.md, "Migrations"; docs/operations/upgrade.md, "What a migration may do").
// 1. The previous release: the commit of the newest service entry in release/releases.json; the
//    migrations that existed there come from `git ls-tree` of that commit.
// 2. Each newer migration is loaded from its compiled file (dist/, so no TypeScript at run time), and
//    its up() runs against a recording stand-in for TypeORM's QueryRunner: the SQL it would send.
// 3. That SQL goes to a temporary .sql file per migration, and squawk lints them with .squawk.toml,
//    as in a transaction unless the migration opts out (`transaction = false`, which CREATE INDEX
//    CONCURRENTLY needs).
// Usage: node tools/ci/lint-migrations.js   (exit 1 when squawk reports a problem or a file cannot be linted)
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const SERVICES = ['gateway', 'billing', 'generation', 'webhooks'];
const SQUAWK = join(ROOT, 'node_modules', '.bin', process.platform === 'win32' ? 'squawk.cmd' : 'squawk');

/** The commit of the newest release of a service (release/releases.json lists the newest last). */
function previousReleaseCommit(releases) {
  const services = releases.releases.filter((r) => SERVICES.includes(r.project));
  if (services.length === 0) throw new Error('release/releases.json has no service release');
  return services[services.length - 1].commit;
}

/** The migration sources (apps/<service>/src/migrations/*.ts) of the working tree. */
function migrationSources(root) {
  return SERVICES.flatMap((service) => {
    const folder = join(root, 'apps', service, 'src', 'migrations');
    if (!existsSync(folder)) return [];
    return readdirSync(folder).filter((f) => /\.ts$/.test(f) && !/\.(int-)?spec\.ts$/.test(f)).map((f) => `apps/${service}/src/migrations/${f}`);
  });
}

/** The migration sources the commit already had (`git ls-tree`): released, not linted. */
function releasedMigrations(root, commit) {
  const result = spawnSync('git', ['ls-tree', '-r', '--name-only', commit, '--', ...SERVICES.map((s) => `apps/${s}/src/migrations`)], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ls-tree ${commit} failed (a shallow clone? fetch the release commit): ${result.stderr.trim()}`);
  return new Set(result.stdout.split('\n').filter(Boolean));
}

/**
 * The SQL a migration's up() sends: a stand-in for TypeORM's QueryRunner that records `query` and
 * answers it with no rows. Any other QueryRunner method (createTable, addColumn, ...) is refused, so
 * a migration the lint cannot see whole fails the lint instead of passing unseen.
 */
async function recordUp(migration) {
  const statements = [];
  const recorder = new Proxy(
    { query: async (sql) => (statements.push(String(sql)), []) },
    {
      get(target, name) {
        if (name in target || typeof name === 'symbol' || name === 'then') return target[name];
        throw new Error(`calls queryRunner.${String(name)}: write the migration as SQL (queryRunner.query) so that it can be linted`);
      },
    },
  );
  await migration.up(recorder);
  return statements;
}

/** One statement per line group, each ending with one semicolon. */
function sqlText(name, statements) {
  const body = statements.map((s) => s.trim().replace(/;\s*$/, '')).filter(Boolean).map((s) => `${s};`).join('\n\n');
  return `-- ${name}\n${body}\n`;
}

/**
 * Lints migrations (`{ name, migration }`, migration an instance with up()) with squawk and the
 * committed config; returns { ok, output } (squawk's gcc-style lines, or the reason a migration
 * could not be recorded).
 */
async function lintMigrations(entries, { root = ROOT, config = join(root, '.squawk.toml') } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'lint-migrations-'));
  const outputs = [];
  let ok = true;
  try {
    const groups = { transaction: [], none: [] };
    for (const [index, { name, migration }] of entries.entries()) {
      let statements;
      try {
        statements = await recordUp(migration);
      } catch (error) {
        ok = false;
        outputs.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      const file = join(dir, `${String(index).padStart(3, '0')}-${name.replace(/[^\w.-]+/g, '_')}.sql`);
      writeFileSync(file, sqlText(name, statements));
      groups[migration.transaction === false ? 'none' : 'transaction'].push(file);
    }
    for (const [kind, files] of Object.entries(groups)) {
      if (files.length === 0) continue;
      const args = ['--config', config, '--reporter', 'gcc', ...(kind === 'transaction' ? ['--assume-in-transaction'] : []), ...files];
      const result = spawnSync(SQUAWK, args, { cwd: dir, encoding: 'utf8' });
      if (result.status !== 0) ok = false;
      const text = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
      if (text) outputs.push(text.split(dir + '/').join(''));
      if (result.error) outputs.push(`squawk did not run: ${result.error.message}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { ok, output: outputs.join('\n') };
}

/** Every migration class a compiled migration file exports, instantiated. */
function migrationsOf(compiledFile) {
  const exported = require(compiledFile);
  return Object.values(exported)
    .filter((value) => typeof value === 'function' && typeof value.prototype?.up === 'function')
    .map((Migration) => new Migration());
}

/** CI's entry: the migrations newer than the previous release, from dist/, linted. */
async function main(root = ROOT) {
  const releases = JSON.parse(readFileSync(join(root, 'release', 'releases.json'), 'utf8'));
  const commit = previousReleaseCommit(releases);
  const released = releasedMigrations(root, commit);
  const fresh = migrationSources(root).filter((source) => !released.has(source));
  console.log(`previous release: ${commit.slice(0, 12)} (release/releases.json); ${released.size} released migrations not linted`);
  if (fresh.length === 0) {
    console.log('no migration newer than the previous release: nothing to lint');
    return 0;
  }
  const entries = [];
  for (const source of fresh) {
    const compiled = join(root, 'dist', source.replace(/\.ts$/, '.js'));
    if (!existsSync(compiled)) {
      console.error(`${source}: ${relative(root, compiled)} does not exist (run npm run build first)`);
      return 1;
    }
    for (const migration of migrationsOf(compiled)) entries.push({ name: source, migration });
  }
  console.log(`linting ${fresh.length} migration file(s) newer than the previous release:\n${fresh.map((f) => `  ${f}`).join('\n')}`);
  const { ok, output } = await lintMigrations(entries, { root });
  if (output) console.log(output);
  console.log(ok ? 'migrations OK (squawk, .squawk.toml)' : 'squawk found a migration the previous release may not survive (CONTRIBUTING.md, "Migrations")');
  return ok ? 0 : 1;
}

module.exports = { lintMigrations, recordUp, sqlText, previousReleaseCommit, releasedMigrations, migrationSources, main };
if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
