import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const ENV = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' };

/** `nx affected` can be trusted: the project graph has the edges the imports make. */
function affectedBy(file: string): string[] {
  const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'nx', 'dist', 'bin', 'nx.js'), 'show', 'projects', '--affected', `--files=${file}`, '--json'], {
    cwd: ROOT,
    env: ENV,
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

  it('a change to one app affects only the apps that compose it, and the workspace tiers (test/, bench/) that drive it', () => {
    expect(affectedBy('apps/billing/src/holds/billing.service.ts')).toEqual(['billing', 'cli', 'standalone', 'workspace']);
  });

  it('a change to the test kit affects the projects whose specs use it, not the libs it builds on', () => {
    const affected = affectedBy('libs/testing/src/factories.ts');
    expect(affected).toEqual(expect.arrayContaining(['billing', 'gateway', 'generation', 'testing', 'webhooks']));
    expect(affected).not.toContain('persistence');
    expect(affected).not.toContain('contracts');
  });
});

interface Probe {
  /** An existing file of a project: its text is replaced, in memory only, by `text`. */
  file: string;
  text: string;
}

/**
 * The boundary rule's messages for each probe, from ESLint run with the repository's config (in a
 * child process: the config is an ES module that builds the project graph as it loads).
 */
function boundaryMessages(probes: Probe[]): string[][] {
  const script = `
    import { ESLint } from 'eslint';
    const eslint = new ESLint({ cwd: process.cwd() });
    const out = [];
    for (const probe of JSON.parse(process.env.BOUNDARY_PROBES)) {
      const [result] = await eslint.lintText(probe.text, { filePath: probe.file });
      const fatal = result.messages.filter((m) => m.fatal);
      if (fatal.length) throw new Error(probe.file + ': ' + fatal.map((m) => m.message).join('; '));
      out.push(result.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message));
    }
    process.stdout.write(JSON.stringify(out));
  `;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { ...ENV, BOUNDARY_PROBES: JSON.stringify(probes) },
    encoding: 'utf8',
    timeout: 240_000,
  });
  if (result.status !== 0) throw new Error(`eslint probe failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as string[][];
}

const importing = (specifier: string, name: string) => `import { ${name} } from '${specifier}';\nexport const probe = ${name};\n`;

describe('module boundaries (@nx/enforce-module-boundaries over the tags of each project.json)', () => {
  let messages: string[][];
  // One ESLint run for all probes: it builds the project graph and the type-aware program once.
  const probes: Array<Probe & { expect: string | null }> = [
    // A lib never imports an app.
    { file: 'libs/webhook-signature/src/index.ts', text: importing('@gen/billing', 'BillingModule'), expect: 'Imports of apps are forbidden' },
    // A service never imports another service: they talk through libs/contracts.
    { file: 'apps/gateway/src/index.ts', text: importing('@gen/billing', 'BillingModule'), expect: 'Imports of apps are forbidden' },
    // The dashboard runs in a browser: only libs tagged platform:any.
    {
      file: 'apps/dashboard/src/api/api.ts',
      text: importing('@gen/errors', 'DomainError'),
      expect: 'A project tagged with "platform:browser" can only depend on libs tagged with "platform:any"',
    },
    // Production code never imports the test kit.
    {
      file: 'apps/billing/src/holds/billing.service.ts',
      text: importing('@gen/testing', 'createTestDatabase'),
      expect: 'can not depend on libs tagged with "scope:testing"',
    },
    // What is allowed: standalone composes the services, a spec uses the test kit, a lib uses a lib.
    { file: 'apps/standalone/src/standalone.ts', text: importing('@gen/billing', 'BillingModule'), expect: null },
    { file: 'apps/billing/src/holds/holds.repository.int-spec.ts', text: importing('@gen/testing', 'createTestDatabase'), expect: null },
    { file: 'libs/observability/src/index.ts', text: importing('@gen/contracts', 'Subjects'), expect: null },
    { file: 'apps/dashboard/src/api/api.ts', text: importing('@gen/contracts', 'GENERATION_TYPES'), expect: null },
  ];

  beforeAll(() => {
    messages = boundaryMessages(probes);
  }, 300_000);

  it.each(probes.map((probe, index) => [probe.file, probe.text.split('\n')[0], index] as const))('%s: %s', (_file, _import, index) => {
    const expected = probes[index].expect;
    if (expected === null) expect(messages[index]).toEqual([]);
    else expect(messages[index]).toEqual([expect.stringContaining(expected)]);
  });
});
