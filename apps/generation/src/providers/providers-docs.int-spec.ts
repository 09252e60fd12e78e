import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCatalogueFile, parseEngineBinding, parseModelEntry } from '../catalogue/model-entry';
import { engineKinds } from '../engine-kinds';
import { isRecord } from '../ports/engine-kind';

/** Every JSON example of docs/operations/providers.md ("Models and providers") is a binding or entry the service accepts. */
describe('docs/operations/providers.md examples', () => {
  const doc = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'operations', 'providers.md'), 'utf8');
  const blocks = [...doc.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]);
  const kinds = engineKinds();

  it('has examples for every provider kind', () => {
    const text = blocks.join('\n');
    for (const kind of ['replicate', 'fal', 'cog', 'openai-images', 'remote']) expect(text).toContain(`"engine": "${kind}"`);
  });

  it.each(blocks.map((block, i) => [i, block]))('example %i validates', (_i, block) => {
    const parsed: unknown = JSON.parse(/^\s*"engine"/.test(block) ? `{${block}}` : block);
    const problems: string[] = [];
    if (!isRecord(parsed)) throw new Error('not an object');
    if (Array.isArray(parsed.models)) parseCatalogueFile(parsed, kinds, problems);
    else if (isRecord(parsed.models)) return; // the retired MODEL_ENGINES shape, shown as what to move from
    else if (typeof parsed.id === 'string') parseModelEntry(parsed, 'entry', kinds, problems);
    else parseEngineBinding(parsed.engine, 'engine', kinds, problems);
    expect(problems).toEqual([]);
  });
});
