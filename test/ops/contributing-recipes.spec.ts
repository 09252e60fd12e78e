import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const RECIPES = ['Add a provider kind', 'Add a field to the generation record', 'Add a dashboard page'];
/** Never part of the repository's sources: installed, built or scratch. */
const SKIPPED = new Set(['node_modules', 'dist', '.git', '.nx', 'tmp', '.data', 'coverage', 'test-artifacts']);

/** The text of each `### <title>` section under "## Recipes" in a CONTRIBUTING.md text. */
export function recipeSections(text: string): Map<string, string> {
  const start = text.indexOf('\n## Recipes\n');
  if (start < 0) return new Map();
  const end = text.indexOf('\n## ', start + 1);
  const body = text.slice(start, end < 0 ? undefined : end);
  return new Map(
    body
      .split('\n### ')
      .slice(1)
      .map((section) => [section.slice(0, section.indexOf('\n')).trim(), section] as const),
  );
}

/**
 * The repository paths a section names: backticked text that reads as a relative path (a `/`, no
 * spaces, not a URL path or a package). `<name>` is a placeholder for a name of the reader's own.
 */
export function namedPaths(section: string): string[] {
  return [...section.matchAll(/`([^`\s]+)`/g)]
    .map(([, text]) => text)
    .filter((text) => text.includes('/') && !/^[/@.]/.test(text) && !/[:=()]/.test(text) && !text.includes('...'));
}

/** Every file and folder of the repository (relative, `/`-separated; folders end with `/`). */
function repositoryPaths(): string[] {
  const walk = (folder: string): string[] =>
    readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
      if (SKIPPED.has(entry.name)) return [];
      const path = folder ? `${folder}/${entry.name}` : entry.name;
      return entry.isDirectory() ? [`${path}/`, ...walk(path)] : [path];
    });
  return walk('');
}

/** Whether `path` (placeholders allowed: the same `<name>` stands for the same text) is among `existing`. */
export function exists(path: string, existing: readonly string[]): boolean {
  const names: string[] = [];
  const pattern = path.replace(/<([a-z-]+)>|[.*+?^${}()|[\]\\]/g, (match: string, name?: string) => {
    if (!name) return `\\${match}`;
    const seen = names.indexOf(name);
    if (seen >= 0) return `\\${seen + 1}`;
    names.push(name);
    return '([^/]+)';
  });
  const regex = new RegExp(`^${pattern}${path.endsWith('/') ? '' : '/?'}$`);
  return existing.some((candidate) => regex.test(candidate));
}

describe('the recipes in CONTRIBUTING.md name files that exist', () => {
  const sections = recipeSections(readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8'));
  const existing = repositoryPaths();

  it('has the three recipes', () => {
    expect([...sections.keys()]).toEqual(RECIPES);
  });

  it.each(RECIPES)('%s: every path it names exists', (title) => {
    const paths = namedPaths(sections.get(title) ?? '');
    expect(paths.length).toBeGreaterThanOrEqual(8);
    expect(paths.filter((path) => !exists(path, existing))).toEqual([]);
  });

  it('reads paths and placeholders as the reader would', () => {
    const existingHere = ['apps/', 'apps/generation/', 'apps/generation/src/providers/fal/', 'apps/generation/src/providers/fal/fal.kind.ts', 'docs/guide/webhooks.md'];
    expect(exists('apps/generation/src/providers/<kind>/<kind>.kind.ts', existingHere)).toBe(true);
    expect(exists('apps/generation/src/providers/<kind>/<kind>.engine.ts', existingHere)).toBe(false);
    expect(exists('apps/generation/src/providers/<kind>/<other>.kind.ts', existingHere)).toBe(true);
    expect(exists('apps/generation/', existingHere)).toBe(true);
    expect(exists('apps/generation', existingHere)).toBe(true);
    expect(exists('apps/generation/src/providers/fal/fal.kinds.ts', existingHere)).toBe(false);
    expect(namedPaths('see `docs/guide/webhooks.md`, `npm run build`, `/dashboard/api/...`, `@gen/contracts`, `??` and `libs/x/`')).toEqual(['docs/guide/webhooks.md', 'libs/x/']);
    const text = '# C\n## Layout\n`apps/a`\n## Recipes\nintro\n### One\n`apps/b`\n### Two\n`apps/c`\n## Changes\n`apps/d`\n';
    expect([...recipeSections(text)].map(([title, body]) => [title, namedPaths(body)])).toEqual([
      ['One', ['apps/b']],
      ['Two', ['apps/c']],
    ]);
  });
});
