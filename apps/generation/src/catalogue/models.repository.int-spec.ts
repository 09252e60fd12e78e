import type { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openGenerationDatabase } from '../generation.database';
import { CATALOGUE, ModelDefinition } from './catalogue';
import { ModelsRepository } from './models.repository';

/** Integration: real PostgreSQL. */
describe('ModelsRepository (PostgreSQL)', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let models: ModelsRepository;

  beforeAll(async () => {
    database = await createTestDatabase('models');
    dataSource = await openGenerationDatabase(database.url, 4);
    models = new ModelsRepository(dataSource);
  });
  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  const strip = ({ createdAt: _c, updatedAt: _u, ...model }: ModelDefinition & { createdAt: Date; updatedAt: Date }) => model;
  const fox: ModelDefinition = { ...CATALOGUE[0], id: 'fox-1', name: 'Fox 1', credits: 5, minimumCredits: 5 };

  it('starts with the seed catalogue (the migration and CATALOGUE agree)', async () => {
    expect((await models.all()).map(strip)).toEqual([...CATALOGUE].sort((a, b) => a.id.localeCompare(b.id)));
  });

  it('refuses to add an id twice; replace moves updated_at only when something changed', async () => {
    const added = await models.insert(fox);
    expect(added).not.toBeNull();
    expect(await models.insert({ ...fox, name: 'other' })).toBeNull();
    const same = await models.replace(fox);
    expect(same?.updatedAt).toEqual(added?.updatedAt);
    const changed = await models.replace({ ...fox, credits: 9 });
    expect(changed?.credits).toBe(9);
    expect(changed!.updatedAt.getTime()).toBeGreaterThan(added!.updatedAt.getTime());
    expect(await models.replace({ ...fox, id: 'missing-1' })).toBeNull();
  });

  it('keeps the openai mapping: written, changed (a change moves updated_at) and removed', async () => {
    const mapped = await models.insert({ ...fox, id: 'lynx-1', openai: { sizes: ['512x512'] } });
    expect(mapped?.openai).toEqual({ sizes: ['512x512'] });
    expect((await models.find('lynx-1'))?.openai).toEqual({ sizes: ['512x512'] });
    const changed = await models.replace({ ...fox, id: 'lynx-1', openai: { sizes: ['256x256'] } });
    expect(changed?.openai).toEqual({ sizes: ['256x256'] });
    expect(changed!.updatedAt.getTime()).toBeGreaterThan(mapped!.updatedAt.getTime());
    const removed = await models.replace({ ...fox, id: 'lynx-1', openai: undefined });
    expect(removed).not.toHaveProperty('openai');
  });

  it('keeps batch_credits: written, changed (a change moves updated_at) and removed', async () => {
    // On the openai test's model (the sync test below counts the models).
    const priced = await models.replace({ ...fox, id: 'lynx-1', batchCredits: 3 });
    expect(priced?.batchCredits).toBe(3);
    expect((await models.find('lynx-1'))?.batchCredits).toBe(3);
    const changed = await models.replace({ ...fox, id: 'lynx-1', batchCredits: 4 });
    expect(changed?.batchCredits).toBe(4);
    expect(changed!.updatedAt.getTime()).toBeGreaterThan(priced!.updatedAt.getTime());
    const removed = await models.replace({ ...fox, id: 'lynx-1', batchCredits: undefined });
    expect(removed).not.toHaveProperty('batchCredits');
  });

  it('sync makes the table equal the file, disables what it does not list, and is idempotent', async () => {
    const file: ModelDefinition[] = [
      { ...CATALOGUE[0], credits: 6 },
      { ...fox, id: 'wolf-1', name: 'Wolf 1', params: { height: 128, width: 128 } },
    ];
    const first = await models.sync(file);
    expect(first.added).toEqual(['wolf-1']);
    expect(first.updated).toEqual([CATALOGUE[0].id]);
    expect(first.disabled.sort()).toEqual([...CATALOGUE.slice(1).map((m) => m.id), 'fox-1', 'lynx-1'].sort());
    const byId = new Map((await models.all()).map((m) => [m.id, m]));
    expect(byId.get('fox-1')?.status).toBe('disabled');
    expect(byId.get(CATALOGUE[0].id)?.credits).toBe(6);

    // Same content, settings in another key order: nothing changes.
    const second = await models.sync([file[0], { ...file[1], params: { width: 128, height: 128 } }]);
    expect(second).toEqual({ added: [], updated: [], disabled: [], unchanged: [CATALOGUE[0].id, 'wolf-1'] });
  });
});
