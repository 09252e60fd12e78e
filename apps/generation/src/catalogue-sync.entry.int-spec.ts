import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from './generation.database';
import { runCatalogueSync } from './catalogue-sync.entry';

const CATALOGUE = join(__dirname, '..', '..', '..', 'k8s', 'base', 'catalogue.json');

/** The generation image's own catalogue sync (its second Kubernetes init container), on a migrated schema. */
describe('sync-catalogue (generation image)', () => {
  let db: TestDatabase;
  let work: string;
  beforeAll(async () => {
    db = await createTestDatabase('catsync');
    await (await openGenerationDatabase(db.url, 2)).destroy();
    work = mkdtempSync(join(tmpdir(), 'catsync-'));
  });
  afterAll(async () => {
    rmSync(work, { recursive: true, force: true });
    await db.drop();
  });

  const sync = async (...argv: string[]) => {
    const lines: string[] = [];
    const code = await runCatalogueSync(argv, { DATABASE_URL: db.url }, (l) => lines.push(l));
    return { code, result: JSON.parse(lines[0]) as Record<string, unknown> };
  };

  it('makes the catalogue equal the Kubernetes catalogue file, then finds nothing to change', async () => {
    const first = await sync('--file', CATALOGUE);
    expect(first.code).toBe(0);
    const again = await sync('--file', CATALOGUE);
    expect(again).toMatchObject({ code: 0, result: { added: [], updated: [], disabled: [] } });
    expect((again.result.unchanged as string[]).length).toBeGreaterThan(0);
  });

  it('refuses an invalid file whole (exit 2, nothing changed) and a missing --file', async () => {
    const bad = join(work, 'bad.json');
    writeFileSync(bad, JSON.stringify({ models: [{ id: 'x' }] }));
    expect(await sync('--file', bad)).toMatchObject({ code: 2, result: { error: { code: 'validation_error' } } });
    expect(await sync('--file', CATALOGUE)).toMatchObject({ code: 0, result: { added: [], updated: [], disabled: [] } });
    expect(await sync()).toMatchObject({ code: 2, result: { error: { message: expect.stringContaining('--file') } } });
  });
});
