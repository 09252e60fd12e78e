import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { importsOf, pathAliases, productionFiles, ROOT, SourceProject, sourceProjects } from '../support/source-imports';

/**
 * No import loop between the folders of any app or lib (CONTRIBUTING.md, "Layers inside a service").
 * A part is a top folder under the project's `src/`; the files at the top of `src/` are one part,
 * `(root)`, so a loop through a lib's entry point or an app's composition counts too (stricter than
 * import-layers.spec.ts, where each root file is a node of its own). Production files only (specs and
 * `test/` folders aside), read with the shared pre-processor (test/support/source-imports.ts).
 */
type Edge = { from: string; to: string };

const PROJECTS = sourceProjects();
const ALIASES = pathAliases();

/** Every relative import (and re-export, dynamic import) between the files of a project's src/, as absolute paths. */
function imports(project: SourceProject): Edge[] {
  const src = `${project.root}/src/`;
  return productionFiles(project.root)
    .filter((file) => file.startsWith(src))
    .flatMap((file) =>
      importsOf(file, PROJECTS, ALIASES)
        .filter((found) => found.specifier.startsWith('.') && found.file?.startsWith(src))
        .map((found) => ({ from: join(ROOT, file), to: join(ROOT, found.file!) })),
    );
}

/**
 * Files at the top of a project's `src/` that are parts of their own rather than of `(root)`: none
 * today (the gateway's DI tokens and SQL functions' list moved into its `settings/`). An entry here is
 * an exception to write down in CONTRIBUTING.md, "No loop between folders".
 */
const OWN_PARTS: Record<string, readonly string[]> = {};

/** The part of `src` a file belongs to: its top folder, or `(root)` for the files at the top. */
function partIn(src: string, own: readonly string[] = []): (file: string) => string {
  return (file) => {
    const segments = relative(src, file).split(sep);
    if (segments.length > 1) return segments[0];
    return own.includes(segments[0]) ? segments[0] : '(root)';
  };
}

/**
 * The loops among the parts: for each group of parts that reach one another (a strongly connected
 * component), one shortest loop through its first part, as `a -> b -> a` with the files of each import.
 */
function folderLoops(edges: Edge[], partOf: (file: string) => string, base: string): string[] {
  const uses = new Map<string, Map<string, Edge>>();
  for (const edge of edges) {
    const [a, b] = [partOf(edge.from), partOf(edge.to)];
    if (a === b) continue;
    if (!uses.has(a)) uses.set(a, new Map());
    if (!uses.get(a)!.has(b)) uses.get(a)!.set(b, edge);
  }
  const parts = [...new Set([...uses.keys(), ...[...uses.values()].flatMap((m) => [...m.keys()])])].sort();
  const next = (p: string) => [...(uses.get(p)?.keys() ?? [])].sort();

  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component.sort());
    }
  };
  parts.forEach((p) => index.has(p) || connect(p));

  return components
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map((component) => {
      // The shortest way back to the component's first part, by breadth-first search inside it.
      const start = component[0];
      const came = new Map<string, string>();
      const queue = [start];
      while (queue.length > 0 && !came.has(start)) {
        const at = queue.shift()!;
        for (const w of next(at).filter((n) => component.includes(n))) {
          if (came.has(w)) continue;
          came.set(w, at);
          queue.push(w);
        }
      }
      const cycle = [start];
      for (let at = came.get(start)!; at !== start; at = came.get(at)!) cycle.unshift(at);
      cycle.unshift(start);
      const files = cycle.slice(0, -1).map((p, k) => {
        const edge = uses.get(p)!.get(cycle[k + 1])!;
        return `${relative(base, edge.from)} -> ${relative(base, edge.to)}`;
      });
      const others = component.filter((p) => !cycle.includes(p));
      return `${cycle.join(' -> ')} (${files.join('; ')})${others.length > 0 ? `; also in the loop: ${others.join(', ')}` : ''}`;
    });
}

describe('no import loop between folders', () => {
  it('checks every app and lib', () => {
    expect(PROJECTS.map((p) => p.root)).toEqual(expect.arrayContaining(['apps/gateway', 'apps/billing', 'apps/dashboard', 'libs/contracts', 'libs/persistence']));
    expect(PROJECTS.length).toBe(readdirSync(join(ROOT, 'apps')).length + readdirSync(join(ROOT, 'libs')).length);
  });

  it.each(PROJECTS.map((p) => [p.root, p] as const))('%s', (root, project) => {
    const src = join(ROOT, root, 'src');
    const edges = imports(project);
    expect(edges.length).toBeGreaterThan(0);
    expect(folderLoops(edges, partIn(src, OWN_PARTS[root]), src)).toEqual([]);
  });

  it('sees imports of every kind it follows', () => {
    const dashboard = PROJECTS.find((p) => p.root === 'apps/dashboard')!;
    expect(imports(dashboard).some((e) => e.to.endsWith('.tsx'))).toBe(true);
    const gateway = PROJECTS.find((p) => p.root === 'apps/gateway')!;
    const part = partIn(join(ROOT, 'apps', 'gateway', 'src'));
    expect(imports(gateway).some((e) => part(e.from) === '(root)' && part(e.to) !== '(root)')).toBe(true);
  });

  it('names the files of a loop it is given, through the top of src/ too', () => {
    const src = join(ROOT, 'apps', 'billing', 'src');
    const at = (path: string) => join(src, ...path.split('/'));
    const edges: Edge[] = [
      { from: at('holds/a.ts'), to: at('accounts/b.ts') },
      { from: at('accounts/b.ts'), to: at('billing.tokens.ts') },
      { from: at('billing.module.ts'), to: at('holds/c.ts') },
      { from: at('ledger/d.ts'), to: at('metrics/e.ts') },
    ];
    expect(folderLoops(edges, partIn(src), src)).toEqual([
      `(root) -> holds -> accounts -> (root) (${join('billing.module.ts')} -> ${join('holds', 'c.ts')}; ${join('holds', 'a.ts')} -> ${join(
        'accounts',
        'b.ts',
      )}; ${join('accounts', 'b.ts')} -> billing.tokens.ts)`,
    ]);
    expect(folderLoops(edges.slice(1), partIn(src), src)).toEqual([]);
  });
});
