import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * Every relative link of every Markdown file in the repository reaches a file that exists (and, with
 * an `#anchor` into a Markdown file, a heading of it), and every docs/<page>.md that a source file,
 * comment or error message cites exists (with the section it names, when it names one: docs/<page>.md,
 * "Section"), and every repository path a document names in backticks exists. Docs move between
 * docs/guide, docs/operations and docs/design, and code moves under them: this is what keeps the
 * citations following both.
 */
const ROOT = resolve(__dirname, '..', '..');
const SKIP = new Set(['node_modules', 'dist', '.git', '.data', '.nx', 'test-artifacts', 'coverage', 'tmp', '.venv', '__pycache__']);
const SOURCE = /\.(md|ts|tsx|mjs|cjs|js|json|ya?ml|sh|py|env|example)$|Dockerfile$/;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name) || name.endsWith('.egg-info')) continue;
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) walk(path, out);
    else if (SOURCE.test(name) && name !== 'package-lock.json') out.push(path);
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The lines of a Markdown file outside code fences. */
function prose(text: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const marker = /^\s*(```|~~~)/.exec(line)?.[1];
    if (marker) fence = fence === undefined ? marker : fence === marker ? undefined : fence;
    else if (fence === undefined) out.push(line);
  }
  return out;
}

const headingCache = new Map<string, string[]>();
/** The headings' texts of a Markdown file, in order. */
function headings(file: string): string[] {
  let found = headingCache.get(file);
  if (!found) {
    found = prose(readFileSync(file, 'utf8'))
      .map((line) => /^#{1,6} (.*)$/.exec(line)?.[1]?.trim())
      .filter((h): h is string => h !== undefined);
    headingCache.set(file, found);
  }
  return found;
}

/** The anchors of a Markdown file's headings (a repeated one gets -1, -2, ...). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const heading of headings(file)) {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const files = walk(ROOT);
const markdown = files.filter((f) => f.endsWith('.md'));

describe('links between the repository’s documents', () => {
  it('finds the documents', () => {
    expect(markdown.length).toBeGreaterThan(20);
    expect(markdown.map((f) => relative(ROOT, f))).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/design/architecture.md']));
  });

  it('every relative Markdown link reaches a file that exists, and a heading when it names an anchor', () => {
    const broken: string[] = [];
    for (const file of markdown) {
      // Inline code (`[a](b)` shown as code) is not a link.
      const lines = prose(readFileSync(file, 'utf8')).map((line) => line.replace(/`[^`]*`/g, '``'));
      for (const line of lines) {
        for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
          const target = match[1];
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
          const [path, anchor] = target.split('#', 2);
          const to = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
          const where = `${relative(ROOT, file)}: ${target}`;
          if (!existsSync(to)) broken.push(`${where} (no such file)`);
          else if (anchor && to.endsWith('.md') && !anchors(to).has(anchor)) broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('every docs/*.md that code, comments, error messages and documents cite exists, with the section it names', () => {
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      // docs/<page>.md#anchor, or docs/<page>.md followed by , "Section" (the quotes escaped too, inside a string).
      for (const match of text.matchAll(/(?<![\w./-])(docs\/[\w./-]+?\.md)(?:#([\w-]+))?`?(?:\)?,\s*\\?"([^"\\]{1,120})\\?")?/g)) {
        const [, path, anchor, quoted] = match;
        // A section name may run on to the next line of a comment (` * ` or `// ` there).
        const section = quoted?.replace(/\s*\n\s*(?:\*|\/\/|#)?\s*/g, ' ');
        const where = `${relative(ROOT, file)}: ${path}${anchor ? `#${anchor}` : ''}${section ? `, "${section}"` : ''}`;
        const to = join(ROOT, path);
        if (!existsSync(to)) broken.push(`${where} (no such file)`);
        else if (anchor && !anchors(to).has(anchor)) broken.push(`${where} (no such heading)`);
        else if (section && !headings(to).some((h) => h.toLowerCase().startsWith(section.toLowerCase()))) broken.push(`${where} (no such section)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every README section that code and documents cite (README, then the section in quotes) exists', () => {
    const readme = join(ROOT, 'README.md');
    const text = readFileSync(readme, 'utf8');
    const broken: string[] = [];
    // This file's own pattern aside.
    for (const file of files.filter((f) => f !== __filename)) {
      for (const match of readFileSync(file, 'utf8').matchAll(/README(?:\.md)?`?,\s*\\?"([^"\\\n]+)\\?"/g)) {
        const section = match[1];
        const found = headings(readme).some((h) => h.toLowerCase().startsWith(section.toLowerCase())) || text.includes(`**${section}.**`);
        if (!found) broken.push(`${relative(ROOT, file)}: README, "${section}"`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('every repository path a document names in backticks exists (`apps/...`, `libs/...`, `test/...`, ...)', () => {
    // Files each install makes from an example beside it, never committed.
    const made = new Set(['k8s/overlays/production/provider-credentials.env', 'k8s/overlays/production/secrets.env']);
    const broken: string[] = [];
    for (const file of markdown) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/`((?:apps|libs|test|bench|tools|k8s|docker|sdk|catalogues)\/[\w./-]+)`/g)) {
        const path = match[1];
        if (!made.has(path) && !existsSync(join(ROOT, path))) broken.push(`${relative(ROOT, file)}: ${path}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
