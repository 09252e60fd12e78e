import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { importsOf, pathAliases, productionFiles, ROOT, sourceProjects } from '../support/source-imports';

interface ProjectConfig {
  compilerOptions: { composite?: boolean; rootDir?: string; outDir?: string; declarationDir?: string; tsBuildInfoFile?: string };
  include?: string[];
  references?: Array<{ path: string }>;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as T;
const projects = sourceProjects();
const aliases = pathAliases();
/** tsconfig.projects.json: every compiled project's tsconfig (the dashboard is Vite's, not here). */
const configs = readJson<{ references: Array<{ path: string }> }>('tsconfig.projects.json').references.map(({ path }) => posix.normalize(path));
const folderOf = (config: string) => posix.dirname(config);
const compiled = [...projects.filter((project) => project.root !== 'apps/dashboard').map((project) => project.root), 'bench'];

/**
 * Each app, lib and bench/ compiles on its own (`nx run <project>:build`, tools/build/compile.js:
 * `tsc -b` on the project's tsconfig), so `nx affected -t build` rebuilds only what a change touches;
 * `npm run build` still compiles them all in one program (tsconfig.build.json) to the same files.
 */
describe('per-project builds (tsconfig.projects.json, tools/build/compile.js)', () => {
  it('lists one tsconfig per compiled project, and nothing else', () => {
    expect(configs.map(folderOf).sort()).toEqual([...compiled].sort());
    for (const config of configs) expect(existsSync(join(ROOT, config))).toBe(true);
  });

  it.each(configs)('%s writes where npm run build does: dist/<its folder>, mirroring the sources', (config) => {
    const folder = folderOf(config);
    const up = folder.split('/').map(() => '..').join('/');
    const { compilerOptions, include } = readJson<ProjectConfig>(config);
    expect(compilerOptions.composite).toBe(true);
    expect(compilerOptions.rootDir).toBe('.');
    expect(compilerOptions.outDir).toBe(`${up}/dist/${folder}`);
    // Declarations and the build state stay out of the folders the images copy (dist/apps, dist/libs).
    expect(compilerOptions.declarationDir).toBe(`${up}/dist/.tsc/${folder}`);
    expect(compilerOptions.tsBuildInfoFile?.startsWith(`${up}/dist/.tsc/${folder}/`)).toBe(true);
    expect(include).toEqual(['**/*.ts']);
  });

  it.each(configs)("%s references exactly the projects its code imports (tsc -b builds those first; Nx's ^build does the same)", (config) => {
    const folder = folderOf(config);
    const imported = new Set<string>();
    for (const file of productionFiles(folder)) {
      for (const { file: target } of importsOf(file, projects, aliases)) {
        const project = target ? compiled.find((root) => target.startsWith(`${root}/`)) : undefined;
        if (project && project !== folder) imported.add(project);
      }
    }
    const references = (readJson<ProjectConfig>(config).references ?? []).map(({ path }) => folderOf(posix.join(dirname(config), path)));
    expect(references.sort()).toEqual([...imported].sort());
  });

  it('tsconfig.build.json (npm run build, one program) compiles the same folders', () => {
    const build = readJson<{ include: string[]; exclude: string[] }>('tsconfig.build.json');
    expect(build.include).toEqual(['apps/**/*.ts', 'libs/**/*.ts', 'bench/**/*.ts']);
    expect(build.exclude).toEqual(expect.arrayContaining(['apps/dashboard/**', '**/*.spec.ts', '**/*.int-spec.ts', '**/test/**']));
  });
});
