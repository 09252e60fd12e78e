import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * `npm pack` (and so `npm publish`) of libs/sdk as a fresh clone has it: no dist/ (it is not in git).
 * The package must build itself (prepack) rather than ship only package.json and README.md.
 */
describe('npm pack of libs/sdk on a fresh clone', () => {
  let parent: string;
  beforeAll(() => {
    parent = mkdtempSync(join(tmpdir(), 'gen-sdk-fresh-'));
    // What git holds of libs/sdk (dist/ is ignored), beside the repository's dependencies (TypeScript).
    cpSync(join(ROOT, 'libs', 'sdk'), join(parent, 'sdk'), { recursive: true, filter: (source) => !/[\\/]dist([\\/]|$)/.test(source.slice(ROOT.length)) });
    symlinkSync(join(ROOT, 'node_modules'), join(parent, 'node_modules'));
  });
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('builds first, so the tarball holds ESM, CommonJS and declarations', () => {
    const out = execFileSync('npm', ['pack', '--json', '--pack-destination', parent], { cwd: join(parent, 'sdk'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const packed = JSON.parse(out) as Array<{ files: Array<{ path: string }> }>;
    const files = packed[0].files.map((file) => file.path);
    expect(files).toEqual(expect.arrayContaining(['dist/esm/index.js', 'dist/cjs/index.js', 'dist/types/index.d.ts', 'README.md', 'package.json']));
    expect(files.filter((path) => path.startsWith('src/'))).toEqual([]);
  }, 180_000);
});
