import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const launcher = createRequire(__filename)('../../tools/cli.js') as { buildState(root: string): 'missing' | 'stale' | 'fresh'; STAMP: string; MAIN: string };

/** `npm run cli`'s launcher decides whether to compile first: only when a source is newer than the build. */
describe('the CLI launcher (tools/cli.js)', () => {
  let root: string;
  const at = (path: string, minute: number) => {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '');
    const time = new Date(Date.UTC(2026, 0, 1, 0, minute));
    utimesSync(file, time, time);
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'cli-launcher-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('compiles first when nothing was ever built', () => {
    at('apps/cli/src/main.ts', 1);
    expect(launcher.buildState(root)).toBe('missing');
  });

  it('runs the build at once when it is newer than every source', () => {
    at('apps/cli/src/main.ts', 1);
    at('libs/errors/src/index.ts', 2);
    at(launcher.MAIN, 3);
    at('dist/libs/errors/src/index.js', 3);
    expect(launcher.buildState(root)).toBe('fresh');
  });

  it('compiles first when a source of the services, a lib or the TypeScript settings changed since', () => {
    at(launcher.MAIN, 3);
    at('libs/errors/src/index.ts', 4);
    expect(launcher.buildState(root)).toBe('stale');
    rmSync(join(root, 'libs'), { recursive: true });
    at('tsconfig.base.json', 4);
    expect(launcher.buildState(root)).toBe('stale');
  });

  it('ignores what the CLI is not compiled from: specs and the dashboard', () => {
    at(launcher.MAIN, 3);
    at('apps/gateway/src/http/openapi.spec.ts', 9);
    at('apps/dashboard/src/app.ts', 9);
    expect(launcher.buildState(root)).toBe('fresh');
  });

  it('counts a compile that changed no output (its stamp), so an untouched source is not compiled again and again', () => {
    at(launcher.MAIN, 3);
    at('apps/cli/src/main.ts', 5);
    expect(launcher.buildState(root)).toBe('stale');
    at(launcher.STAMP, 6);
    expect(launcher.buildState(root)).toBe('fresh');
  });
});
