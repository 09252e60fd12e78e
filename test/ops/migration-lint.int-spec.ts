import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MigrationInterface, QueryRunner } from 'typeorm';

interface Migration {
  transaction?: boolean;
  up(q: { query(sql: string): Promise<unknown> }): Promise<void>;
}
const lint = createRequire(__filename)('../../tools/ci/lint-migrations.js') as {
  lintMigrations(entries: Array<{ name: string; migration: Migration }>): Promise<{ ok: boolean; output: string }>;
  previousReleaseCommit(releases: unknown): string;
  releasedMigrations(root: string, commit: string): Set<string>;
  migrationSources(root: string): string[];
};
const ROOT = join(__dirname, '..', '..');

/** A migration as the services write them: SQL through queryRunner.query. */
function migration(statements: string[], options: { transaction?: boolean } = {}): Migration {
  return {
    ...options,
    async up(q) {
      for (const sql of statements) await q.query(sql);
    },
  };
}

/** A dangerous migration written as the services write theirs: a TypeORM class whose up() drops a column. */
class HoldsDropModel1799000000000 implements MigrationInterface {
  name = 'HoldsDropModel1799000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "billing"."holds" DROP COLUMN "model"`);
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "billing"."holds" ADD COLUMN "model" text`);
  }
}

/** The migration linter (tools/ci/lint-migrations.js): squawk with .squawk.toml on the SQL a migration's up() sends. */
describe('migration lint (squawk)', () => {
  it('fails the migrations the previous release would not survive, naming each rule', async () => {
    const result = await lint.lintMigrations([
      { name: 'drop-column', migration: new HoldsDropModel1799000000000() as unknown as Migration },
      { name: 'required-column', migration: migration(['ALTER TABLE "billing"."holds" ADD COLUMN "region" text NOT NULL']) },
      { name: 'rename-column', migration: migration(['ALTER TABLE "billing"."holds" RENAME COLUMN "model" TO "model_id"']) },
      { name: 'checked-constraint', migration: migration(['ALTER TABLE "billing"."holds" ADD CONSTRAINT "holds_amount_positive" CHECK (amount > 0)']) },
      { name: 'blocking-index', migration: migration(['CREATE INDEX "holds_model" ON "billing"."holds" ("model")']) },
    ]);
    expect(result.ok).toBe(false);
    for (const rule of ['ban-drop-column', 'adding-required-field', 'renaming-column', 'constraint-missing-not-valid', 'require-concurrent-index-creation']) {
      expect(result.output).toContain(rule);
    }
  });

  it('passes expand-only migrations: a nullable column, a column with a default, a constraint NOT VALID then validated, an index built concurrently', async () => {
    const result = await lint.lintMigrations([
      { name: 'nullable', migration: migration(['ALTER TABLE "billing"."holds" ADD COLUMN "region" text', `ALTER TABLE "billing"."holds" ADD COLUMN "tier" text NOT NULL DEFAULT 'standard'`]) },
      {
        name: 'not-valid',
        migration: migration(['ALTER TABLE "billing"."holds" ADD CONSTRAINT "holds_amount_positive" CHECK (amount > 0) NOT VALID']),
      },
      { name: 'validate', migration: migration(['ALTER TABLE "billing"."holds" VALIDATE CONSTRAINT "holds_amount_positive"']) },
      // CREATE INDEX CONCURRENTLY cannot run in a transaction: the migration says so (TypeORM's `transaction = false`).
      { name: 'concurrent-index', migration: migration(['CREATE INDEX CONCURRENTLY IF NOT EXISTS "holds_region" ON "billing"."holds" ("region")'], { transaction: false }) },
      { name: 'new-table', migration: migration(['CREATE TABLE "billing"."regions" ("id" uuid PRIMARY KEY, "name" text NOT NULL)', 'CREATE INDEX "regions_name" ON "billing"."regions" ("name")']) },
    ]);
    expect(result).toEqual({ ok: true, output: '' });
  });

  it('refuses a migration it cannot see whole (a QueryRunner method other than query)', async () => {
    const opaque: Migration = {
      async up(q) {
        await (q as unknown as { dropColumn(t: string, c: string): Promise<void> }).dropColumn('holds', 'model');
      },
    };
    const result = await lint.lintMigrations([{ name: 'opaque', migration: opaque }]);
    expect(result.ok).toBe(false);
    expect(result.output).toContain('opaque: calls queryRunner.dropColumn');
  });

  it('lints only migrations newer than the previous release (the newest service release in release/releases.json)', () => {
    const releases = JSON.parse(readFileSync(join(ROOT, 'release', 'releases.json'), 'utf8')) as unknown;
    const commit = lint.previousReleaseCommit(releases);
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    const released = lint.releasedMigrations(ROOT, commit);
    expect(released.has('apps/billing/src/migrations/1763700000000-billing-init.ts')).toBe(true);
    expect(lint.migrationSources(ROOT)).toEqual(expect.arrayContaining([...released].filter((f) => f.endsWith('.ts'))));
    expect(lint.previousReleaseCommit({ releases: [{ project: 'gateway', commit: 'a' }, { project: 'billing', commit: 'b' }, { project: 'sdk', commit: 'c' }] })).toBe('b');
  });
});
