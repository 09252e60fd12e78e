import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The layouts the README and docs/design/architecture.md draw name every app and lib (each folder of
 * apps/ and libs/ with a project.json) and nothing that does not exist, so that they cannot fall
 * behind the code again; and the docs' index (docs/README.md) links every page.
 */
const ROOT = resolve(__dirname, '..', '..');

/** The Nx projects under apps/ or libs/: `apps/gateway`, `libs/contracts`, ... */
function projects(folder: 'apps' | 'libs'): string[] {
  return readdirSync(join(ROOT, folder))
    .filter((name) => existsSync(join(ROOT, folder, name, 'project.json')))
    .map((name) => `${folder}/${name}`);
}
const PROJECTS = [...projects('apps'), ...projects('libs')].sort();

/** The first code block after a Markdown file's `## <heading>` line. */
function codeBlockAfter(file: string, heading: string): string[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`${file} has no "## ${heading}"`);
  const open = lines.findIndex((line, i) => i > start && line.startsWith('```'));
  const close = lines.findIndex((line, i) => i > open && line.startsWith('```'));
  return lines.slice(open + 1, close);
}

describe("the layouts drawn in the README and the architecture", () => {
  it('finds the projects', () => {
    expect(PROJECTS).toEqual(expect.arrayContaining(['apps/gateway', 'apps/generation', 'libs/contracts', 'libs/testing']));
  });

  it("README's layout names every app and lib, and only paths that exist", () => {
    // One entry a line, its path first (several paths: "docker/, k8s/"); indented lines continue the one above.
    const paths = codeBlockAfter('README.md', 'Layout')
      .filter((line) => /^\S/.test(line))
      .flatMap((line) => line.split(/\s{2,}/)[0].split(/,\s*/));
    expect(paths.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
    const named = paths.map((path) => path.replace(/\/$/, '')).filter((path) => /^(apps|libs)\/[^/]+$/.test(path));
    expect([...new Set(named)].sort()).toEqual(PROJECTS);
  });

  it('docs/README.md links every page of docs/, and the decisions index every record', () => {
    const linked = (index: string) => new Set([...readFileSync(join(ROOT, index), 'utf8').matchAll(/\]\(([^)#\s]+)/g)].map((m) => join(dirname(index), m[1])));
    const pages = (folder: string) => readdirSync(join(ROOT, folder)).filter((f) => f.endsWith('.md') && f !== 'README.md').map((f) => join(folder, f));
    const index = linked('docs/README.md');
    const docPages = ['docs/guide', 'docs/operations', 'docs/design'].flatMap(pages);
    expect(docPages.filter((page) => !index.has(page))).toEqual([]);
    expect(index.has('docs/design/decisions/README.md')).toBe(true);
    const decisions = linked('docs/design/decisions/README.md');
    expect(pages('docs/design/decisions').filter((page) => !decisions.has(page))).toEqual([]);
  });

  it("docs/design/architecture.md's layout names every app and lib, and only those that exist", () => {
    const named: string[] = [];
    let folder: string | undefined;
    for (const line of codeBlockAfter('docs/design/architecture.md', 'Layout')) {
      const top = /^(apps|libs)\/\s/.exec(line);
      if (top) folder = top[1];
      else if (/^\S/.test(line)) folder = undefined;
      else if (folder) {
        const entry = /^ {2}([\w.-]+)\/\s/.exec(line);
        if (entry) named.push(`${folder}/${entry[1]}`);
      }
    }
    expect(named.sort()).toEqual(PROJECTS);
  });
});
