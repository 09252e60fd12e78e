import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const GENERATION = join(ROOT, 'apps', 'generation', 'src');

/**
 * The generation service's layers, top to bottom (CONTRIBUTING.md, "Layers inside generation"). A part
 * imports only from its own layer or a lower one, and the parts import one another without a loop.
 * A part is a top folder under src/ (`jobs/runtime` is one of its own, above `jobs`); the files at the
 * top of src/ are `(root)`.
 */
const LAYERS: ReadonlyArray<{ layer: string; parts: readonly string[] }> = [
  { layer: 'composition and transport', parts: ['(root)', 'migrations'] },
  { layer: 'handlers', parts: ['callbacks', 'admin', 'batches'] },
  { layer: 'job runtime', parts: ['jobs/runtime', 'jobs', 'catalogue'] },
  { layer: 'adapters', parts: ['providers', 'engines'] },
  { layer: 'ports', parts: ['ports'] },
  { layer: 'infrastructure', parts: ['metrics', 'outbox', 'config'] },
];

type Edge = { from: string; to: string };

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !/\.(int-|e2e-)?spec\.ts$/.test(e.name) && !e.parentPath.split(sep).includes('test'))
    .map((e) => join(e.parentPath, e.name));
}

/** The file a relative import names (`./x`, `./x.js` as the SDK writes it, `./folder` for its index), or null. */
function target(file: string, path: string): string | null {
  const base = resolve(dirname(file), path);
  for (const candidate of [`${base}.ts`, base.replace(/\.js$/, '.ts'), join(base, 'index.ts')]) {
    if (existsSync(candidate) && candidate.endsWith('.ts')) return candidate;
  }
  return null;
}

/** Every relative import (and re-export) of the non-spec files under `folder`, as file paths. */
function imports(folder: string): Edge[] {
  const found: Edge[] = [];
  for (const file of sourceFiles(folder)) {
    for (const [, path] of readFileSync(file, 'utf8').matchAll(/\bfrom\s*'(\.[^']+)'/g)) {
      const to = target(file, path);
      if (to?.startsWith(folder + sep)) found.push({ from: file, to });
    }
  }
  return found;
}

function generationPart(file: string): string {
  const segments = relative(GENERATION, file).split(sep);
  if (segments.length === 1) return '(root)';
  return segments[0] === 'jobs' && segments[1] === 'runtime' && segments.length > 2 ? 'jobs/runtime' : segments[0];
}

const layerOf = (part: string) => LAYERS.findIndex((l) => l.parts.includes(part));

/** Each loop among the parts, as `a -> b -> a` with the two files of each of its imports. */
function loops(edges: Edge[], partOf: (file: string) => string, base: string): string[] {
  const uses = new Map<string, Map<string, Edge>>();
  for (const edge of edges) {
    const [a, b] = [partOf(edge.from), partOf(edge.to)];
    if (a === b) continue;
    if (!uses.has(a)) uses.set(a, new Map());
    if (!uses.get(a)!.has(b)) uses.get(a)!.set(b, edge);
  }
  const found = new Set<string>();
  const visit = (part: string, path: string[]): void => {
    const at = path.indexOf(part);
    if (at >= 0) {
      const cycle = [...path.slice(at), part];
      const start = cycle.slice(0, -1).sort()[0];
      const i = cycle.indexOf(start);
      const canonical = [...cycle.slice(i, -1), ...cycle.slice(0, i), start];
      const files = canonical.slice(0, -1).map((p, k) => {
        const edge = uses.get(p)!.get(canonical[k + 1])!;
        return `${relative(base, edge.from)} -> ${relative(base, edge.to)}`;
      });
      found.add(`${canonical.join(' -> ')} (${files.join('; ')})`);
      return;
    }
    for (const next of uses.get(part)?.keys() ?? []) visit(next, [...path, part]);
  };
  for (const part of uses.keys()) visit(part, []);
  return [...found];
}

describe('generation: layers with imports pointing down', () => {
  const edges = imports(GENERATION);

  it('sees the imports it checks', () => {
    const pairs = new Set(edges.map((e) => `${generationPart(e.from)} -> ${generationPart(e.to)}`));
    expect([...pairs]).toEqual(expect.arrayContaining(['jobs/runtime -> jobs', 'providers -> ports', '(root) -> providers', 'callbacks -> jobs/runtime']));
  });

  it('has every folder in the table', () => {
    const parts = new Set(sourceFiles(GENERATION).map(generationPart));
    expect([...parts].filter((part) => layerOf(part) < 0)).toEqual([]);
  });

  it('imports nothing from a higher layer', () => {
    const upward = edges
      .filter((e) => layerOf(generationPart(e.to)) < layerOf(generationPart(e.from)))
      .map((e) => `${relative(GENERATION, e.from)} -> ${relative(GENERATION, e.to)}`);
    expect(upward).toEqual([]);
  });

  it('has no loop between its parts', () => {
    expect(loops(edges, generationPart, GENERATION)).toEqual([]);
  });

  it('finds a loop where there is one', () => {
    const a = join(GENERATION, 'jobs', 'x.ts');
    const b = join(GENERATION, 'catalogue', 'y.ts');
    expect(loops([{ from: a, to: b }, { from: b, to: a }], generationPart, GENERATION)).toEqual([
      `catalogue -> jobs -> catalogue (${join('catalogue', 'y.ts')} -> ${join('jobs', 'x.ts')}; ${join('jobs', 'x.ts')} -> ${join('catalogue', 'y.ts')})`,
    ]);
  });
});

describe.each(['sdk', 'transport', 'observability'])('libs/%s: no import loop', (lib) => {
  const src = join(ROOT, 'libs', lib, 'src');
  const edges = imports(src);

  it('between its files', () => {
    expect(edges.length).toBeGreaterThan(0);
    expect(loops(edges, (file) => relative(src, file), src)).toEqual([]);
  });

  it('between its folders', () => {
    const folderOf = (file: string) => {
      const segments = relative(src, file).split(sep);
      return segments.length === 1 ? '(root)' : segments[0];
    };
    expect(loops(edges, folderOf, src)).toEqual([]);
  });
});
