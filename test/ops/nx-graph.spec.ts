import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** `nx affected` can be trusted: the project graph has the edges the imports make. */
function affectedBy(file: string): string[] {
  const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'nx', 'dist', 'bin', 'nx.js'), 'show', 'projects', '--affected', `--files=${file}`, '--json'], {
    cwd: ROOT,
    env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(result.status).toBe(0);
  return (JSON.parse(result.stdout) as string[]).sort();
}

describe('Nx project graph', () => {
  it('a change to libs/contracts affects every app that imports it', () => {
    expect(affectedBy('libs/contracts/src/index.ts')).toEqual(
      expect.arrayContaining(['billing', 'cli', 'contracts', 'dashboard', 'gateway', 'generation', 'standalone', 'webhooks']),
    );
  });

  it('a change to one app affects only the apps that compose it', () => {
    expect(affectedBy('apps/billing/src/holds/billing.service.ts')).toEqual(['billing', 'cli', 'standalone']);
  });
});
