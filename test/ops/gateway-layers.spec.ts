import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const GATEWAY = resolve(__dirname, '..', '..', 'apps', 'gateway', 'src');

/**
 * The gateway's layers, top to bottom (CONTRIBUTING.md, "Layers inside a service"). A folder imports
 * only from its own layer or a lower one, and the folders import one another without a loop. A file
 * at the top of src/ is a part of its own: the composition (edge, `(root)`) unless listed here.
 */
const LAYERS: ReadonlyArray<{ layer: string; parts: readonly string[] }> = [
  { layer: 'edge', parts: ['(root)', 'http', 'maintenance', 'migrations'] },
  {
    layer: 'features',
    parts: ['accounts', 'audit', 'batches', 'generations', 'keys', 'low-balance', 'members', 'models', 'openai', 'outputs', 'payments', 'provider-callbacks', 'uploads', 'usage', 'webhook-tests'],
  },
  { layer: 'identity', parts: ['sessions', 'provisioning', 'memberships', 'users', 'auth', 'rate-limit', 'plans'] },
  { layer: 'infrastructure', parts: ['audit-log', 'docs', 'http-common', 'idempotency', 'mail', 'rpc', 'settings'] },
];

/** The part a file belongs to: its top folder under src/, or the file itself at the top. */
function partOf(file: string): string {
  return relative(GATEWAY, file).split(sep)[0];
}

function layerOf(part: string): number {
  const listed = LAYERS.findIndex((l) => l.parts.includes(part));
  return listed < 0 && part.endsWith('.ts') ? 0 : listed;
}

function sourceFiles(): string[] {
  return readdirSync(GATEWAY, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !/\.(int-)?spec\.ts$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** Every relative import of the gateway's non-spec files, as [from, to] file paths. */
function imports(): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  for (const file of sourceFiles()) {
    for (const [, path] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) found.push([file, resolve(dirname(file), path) + '.ts']);
  }
  return found;
}

const show = (file: string) => relative(GATEWAY, file);

/** The imports that point from a layer to a higher one. */
function upwardIn(edges: Array<[string, string]>): string[] {
  return edges
    .filter(([from, to]) => layerOf(partOf(to)) < layerOf(partOf(from)))
    .map(([from, to]) => `${show(from)} (${LAYERS[layerOf(partOf(from))].layer}) -> ${show(to)} (${LAYERS[layerOf(partOf(to))].layer})`);
}

/** Each loop between parts, as one import per step ("a/x.ts -> b/y.ts, b/z.ts -> a/w.ts"). */
function loopsIn(edges: Array<[string, string]>): string[] {
  const uses = new Map<string, Map<string, string>>();
  for (const [from, to] of edges) {
    const [a, b] = [partOf(from), partOf(to)];
    if (a === b) continue;
    if (!uses.has(a)) uses.set(a, new Map());
    if (!uses.get(a)!.has(b)) uses.get(a)!.set(b, `${show(from)} -> ${show(to)}`);
  }
  const loops: string[] = [];
  const done = new Set<string>();
  const visit = (part: string, path: string[]): void => {
    const at = path.indexOf(part);
    if (at >= 0) {
      const cycle = [...path.slice(at), part];
      loops.push(cycle.slice(1).map((p, i) => uses.get(cycle[i])!.get(p)).join(', '));
      return;
    }
    if (done.has(part)) return;
    for (const next of uses.get(part)?.keys() ?? []) visit(next, [...path, part]);
    done.add(part);
  };
  [...uses.keys()].forEach((p) => visit(p, []));
  return loops;
}

describe("the gateway's layers", () => {
  it('puts every folder in a layer', () => {
    const parts = new Set(sourceFiles().map(partOf));
    expect([...parts].filter((p) => layerOf(p) < 0)).toEqual([]);
  });

  it('imports only from the same layer or a lower one', () => {
    expect(upwardIn(imports())).toEqual([]);
  });

  it('has no import loop between its folders', () => {
    expect(loopsIn(imports())).toEqual([]);
  });

  it('names the files of an upward import and of a loop', () => {
    const at = (path: string) => join(GATEWAY, path);
    const edges: Array<[string, string]> = [
      [at('users/a.ts'), at('keys/b.ts')],
      [at('keys/b.ts'), at('users/c.ts')],
      [at('settings/gateway.tokens.ts'), at('gateway.module.ts')],
    ];
    expect(upwardIn(edges)).toEqual([
      'users/a.ts (identity) -> keys/b.ts (features)',
      'settings/gateway.tokens.ts (infrastructure) -> gateway.module.ts (edge)',
    ]);
    expect(loopsIn(edges)).toEqual(['users/a.ts -> keys/b.ts, keys/b.ts -> users/c.ts']);
  });
});
