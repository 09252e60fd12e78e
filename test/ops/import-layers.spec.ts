import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { importsOf, pathAliases, productionFiles, ROOT, SourceProject, sourceProjects } from '../support/source-imports';

/**
 * Imports point one way between the folders of each app and lib (CONTRIBUTING.md, "Layout"). A node
 * is a folder directly under the project's `src/` (`http/`), or a file at its root as a node of its
 * own (`gateway.settings.ts`); a folder outside `src/` (`examples/`) is one node. Only production code
 * counts (specs and `test/` folders are left out, as the build leaves them out); imports through a
 * path alias (`@gen/contracts`) cross projects and are the project graph's business (Nx, lint), never
 * an edge inside one. A loop is a strongly connected group of such nodes: every node in it reaches
 * every other, so none of them can be understood, moved or tested without the rest.
 *
 * KNOWN_LOOPS is exactly what main has; the spec fails on a loop not in it and on one in it that is
 * gone, so the list can only shrink: when you break a loop, remove it here (or replace it by the
 * smaller loops the spec then reports).
 */
interface Loop {
  project: string;
  nodes: string[];
}

const KNOWN_LOOPS: Loop[] = [
  { project: 'billing', nodes: ['accounts/', 'holds/'] },
  { project: 'webhooks', nodes: ['deliveries/', 'dispatch/'] },
];

interface Edge {
  from: string;
  to: string;
  /** Each `importing file → imported file` that makes the edge. */
  imports: string[];
}

/** The node of a root-relative file of `project`: `http/`, `gateway.settings.ts`, `examples/`. */
function nodeOf(project: SourceProject, file: string): string {
  const inProject = file.slice(project.root.length + 1);
  const [top, ...rest] = inProject.split('/');
  if (top !== 'src') return `${top}/`;
  return rest.length === 1 ? rest[0] : `${rest[0]}/`;
}

interface ProjectGraph {
  edges: Map<string, Edge>;
  /** Relative imports that name no source file (a typo the resolver missed would hide an edge). */
  unresolved: string[];
}

const projects = sourceProjects();
const aliases = pathAliases();

function folderGraph(project: SourceProject): ProjectGraph {
  const edges = new Map<string, Edge>();
  const unresolved: string[] = [];
  for (const file of productionFiles(project.root)) {
    for (const imported of importsOf(file, projects, aliases)) {
      if (!imported.specifier.startsWith('.')) continue; // packages, and the path aliases (cross-project)
      if (!imported.file) {
        const target = join(ROOT, file, '..', imported.specifier);
        if (!(existsSync(target) && statSync(target).isFile())) unresolved.push(`${file} → ${imported.specifier}`);
        continue;
      }
      if (!imported.file.startsWith(`${project.root}/`)) continue; // a deep path into another project: lint's business
      const from = nodeOf(project, file);
      const to = nodeOf(project, imported.file);
      if (from === to) continue;
      const key = `${from}\0${to}`;
      const edge = edges.get(key) ?? { from, to, imports: [] };
      edge.imports.push(`${file} → ${imported.file}`);
      edges.set(key, edge);
    }
  }
  return { edges, unresolved };
}

/** The strongly connected groups of more than one node (Tarjan), each sorted, the groups sorted. */
function loopsOf(edges: Iterable<Edge>): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    next.set(from, [...(next.get(from) ?? []), to]);
    if (!next.has(to)) next.set(to, []);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of [...next.keys()].sort()) if (!index.has(node)) visit(node);
  return groups.sort((a, b) => a.join().localeCompare(b.join()));
}

/** A loop, written so that it can be undone: each edge inside it with the imports that make it. */
function loopReport(project: string, nodes: string[], edges: Map<string, Edge>): string {
  const inside = [...edges.values()].filter((edge) => nodes.includes(edge.from) && nodes.includes(edge.to));
  const lines = inside.flatMap((edge) => [`  ${edge.from} → ${edge.to}`, ...edge.imports.map((line) => `      ${line}`)]);
  return [`${project}: ${nodes.join(' ')}`, ...lines].join('\n');
}

const same = (a: Loop, b: Loop) => a.project === b.project && a.nodes.join() === b.nodes.join();

describe('imports between the folders of each app and lib point one way', () => {
  const graphs = new Map(projects.map((project) => [project.name, folderGraph(project)]));
  const found: Loop[] = projects.flatMap((project) => loopsOf(graphs.get(project.name)!.edges.values()).map((nodes) => ({ project: project.name, nodes })));

  it('every relative import names a file (so no edge is missed)', () => {
    expect([...graphs.values()].flatMap((graph) => graph.unresolved)).toEqual([]);
  });

  it('reads real graphs: the gateway has folders that import one another', () => {
    expect(graphs.get('gateway')!.edges.size).toBeGreaterThan(50);
  });

  it('no loop between folders but the known ones', () => {
    const fresh = found.filter((loop) => !KNOWN_LOOPS.some((known) => same(known, loop)));
    const report = fresh.map((loop) => {
      const within = KNOWN_LOOPS.find((known) => known.project === loop.project && loop.nodes.every((node) => known.nodes.includes(node)));
      const note = within ? `(part of the known loop ${within.nodes.join(' ')}: replace that one in KNOWN_LOOPS by this)\n` : '';
      return note + loopReport(loop.project, loop.nodes, graphs.get(loop.project)!.edges);
    });
    expect(report).toEqual([]);
  });

  it('every known loop is still there (a loop broken is removed from KNOWN_LOOPS: the list only shrinks)', () => {
    const gone = KNOWN_LOOPS.filter((known) => !found.some((loop) => same(known, loop)));
    expect(gone.map((loop) => `${loop.project}: ${loop.nodes.join(' ')} is no longer a loop: remove it from KNOWN_LOOPS`)).toEqual([]);
  });

  it('a loop is found and reported with the imports that make it', () => {
    const edges = new Map<string, Edge>([
      ['a', { from: 'mail/', to: 'dashboard/', imports: ['apps/x/src/mail/mailer.ts → apps/x/src/dashboard/dashboard.settings.ts'] }],
      ['b', { from: 'dashboard/', to: 'mail/', imports: ['apps/x/src/dashboard/invite.service.ts → apps/x/src/mail/mailer.ts'] }],
      ['c', { from: 'dashboard/', to: 'users/', imports: ['apps/x/src/dashboard/d.ts → apps/x/src/users/u.ts'] }],
    ]);
    const loops = loopsOf(edges.values());
    expect(loops).toEqual([['dashboard/', 'mail/']]);
    expect(loopReport('x', loops[0], edges)).toBe(
      [
        'x: dashboard/ mail/',
        '  mail/ → dashboard/',
        '      apps/x/src/mail/mailer.ts → apps/x/src/dashboard/dashboard.settings.ts',
        '  dashboard/ → mail/',
        '      apps/x/src/dashboard/invite.service.ts → apps/x/src/mail/mailer.ts',
      ].join('\n'),
    );
  });
});

describe('apps never import one another; libs never import an app', () => {
  // standalone and cli compose the services in one process; every other app talks over the transport.
  const COMPOSERS = new Set(['standalone', 'cli']);

  it.each(projects.filter((project) => !COMPOSERS.has(project.name)).map((project) => [project.name, project] as const))('%s', (_name, project) => {
    const crossing = productionFiles(project.root).flatMap((file) =>
      importsOf(file, projects, aliases)
        .filter((imported) => imported.project !== null && imported.project !== project.name && projects.find((p) => p.name === imported.project)?.kind === 'app')
        .map((imported) => `${file} imports ${imported.specifier} (${imported.project})`),
    );
    expect(crossing).toEqual([]);
  });
});
