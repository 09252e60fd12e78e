import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

/**
 * The imports of the workspace's source, read with the TypeScript compiler's own pre-processor
 * (`import`, `import type`, `export ... from`, `import()` and `require()`), resolved to files and
 * projects. Shared by the specs that hold the build's project references and the folder layers
 * inside each project to the imports (test/ops/build-projects.spec.ts, test/ops/import-layers.spec.ts).
 */
export const ROOT = resolve(__dirname, '..', '..');

export interface SourceProject {
  /** Nx's name (project.json). */
  name: string;
  /** The folder, relative to the root, `/`-separated: `apps/gateway`. */
  root: string;
  kind: 'app' | 'lib';
}

export interface SourceImport {
  /** The importing file, relative to the root. */
  from: string;
  specifier: string;
  /** The imported file, relative to the root, when it is one of the workspace's sources. */
  file: string | null;
  /** The project the import lands in (an alias such as `@gen/contracts`, or a relative path into it). */
  project: string | null;
}

const posix = (path: string) => path.split(sep).join('/');

/** Every app and lib with a project.json, apps first. */
export function sourceProjects(): SourceProject[] {
  return (['apps', 'libs'] as const).flatMap((folder) =>
    readdirSync(join(ROOT, folder))
      .filter((name) => existsSync(join(ROOT, folder, name, 'project.json')))
      .sort()
      .map((name) => ({
        name: (JSON.parse(readFileSync(join(ROOT, folder, name, 'project.json'), 'utf8')) as { name: string }).name,
        root: `${folder}/${name}`,
        kind: folder === 'apps' ? ('app' as const) : ('lib' as const),
      })),
  );
}

const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'test']);
const isSpec = (name: string) => /\.(spec|int-spec|e2e-spec|dist-spec)\.tsx?$/.test(name);

/**
 * The production source files of a project folder (relative to the root): `.ts`/`.tsx` but not `.d.ts`,
 * without specs and `test/` folders, which the build leaves out too (tsconfig.build.json).
 */
export function productionFiles(projectRoot: string): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : walk(path);
      return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') && !isSpec(entry.name) ? [path] : [];
    });
  return walk(projectRoot).sort();
}

/** The path aliases of tsconfig.base.json: `@gen/errors` → `libs/errors/src/index.ts`. */
export function pathAliases(): Map<string, string> {
  const { compilerOptions } = JSON.parse(readFileSync(join(ROOT, 'tsconfig.base.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
  return new Map(Object.entries(compilerOptions.paths).map(([alias, [target]]) => [alias, target]));
}

/** The source file a relative specifier names, as TypeScript resolves it (`./x`, `./x.js`, `./x/index`). */
function resolveRelative(fromFile: string, specifier: string): string | null {
  const base = resolve(ROOT, dirname(fromFile), specifier);
  const stem = base.replace(/\.(js|jsx|mjs|cjs)$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, join(stem, 'index.ts'), join(stem, 'index.tsx')]) {
    if (/\.tsx?$/.test(candidate) && existsSync(candidate) && statSync(candidate).isFile()) return posix(relative(ROOT, candidate));
  }
  return null;
}

/** The project folder a root-relative file lies in, among `projects`. */
export function projectOf(file: string, projects: SourceProject[]): SourceProject | null {
  return projects.find((project) => file.startsWith(`${project.root}/`)) ?? null;
}

/** The imports of one root-relative source file, resolved. */
export function importsOf(file: string, projects: SourceProject[], aliases = pathAliases()): SourceImport[] {
  const info = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
  return info.importedFiles.map(({ fileName: specifier }) => {
    const aliased = aliases.get(specifier);
    const target = aliased ?? (specifier.startsWith('.') ? resolveRelative(file, specifier) : null);
    return { from: file, specifier, file: target, project: target ? (projectOf(target, projects)?.name ?? null) : null };
  });
}
