import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const NX = join(ROOT, 'node_modules', 'nx', 'dist', 'bin', 'nx.js');
const ENV = { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' };

function nx(args: string[]): string {
  const result = spawnSync(process.execPath, [NX, ...args], { cwd: ROOT, env: ENV, encoding: 'utf8', timeout: 120_000 });
  if (result.status !== 0) throw new Error(`nx ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** What `nx affected -t build` would build for a change to `file` (the same answer as with --base/--head). */
const affectedBuilds = (file: string) => (JSON.parse(nx(['show', 'projects', '--affected', `--files=${file}`, '-t', 'build', '--json'])) as string[]).sort();

interface BuildTarget {
  executor: string;
  dependsOn?: unknown[];
  options: { command?: string; commands?: string[] };
  outputs?: string[];
}
interface GraphNode {
  data: { root: string; targets: Record<string, BuildTarget | undefined> };
}

describe('Nx builds each project on its own', () => {
  let nodes: Record<string, GraphNode>;
  let work: string;

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'nx-build-'));
    nx(['graph', `--file=${join(work, 'graph.json')}`]);
    nodes = (JSON.parse(readFileSync(join(work, 'graph.json'), 'utf8')) as { graph: { nodes: Record<string, GraphNode> } }).graph.nodes;
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("every Node app and lib compiles itself after what it imports (^build), into its own dist folder", () => {
    const compiled = Object.entries(nodes).filter(([name, node]) => name !== 'dashboard' && name !== 'workspace' && /^(apps|libs)\//.test(node.data.root));
    expect(compiled.length).toBeGreaterThanOrEqual(19);
    for (const [name, { data }] of compiled) {
      const build = data.targets.build;
      expect({ name, executor: build?.executor }).toEqual({ name, executor: 'nx:run-commands' });
      const commands = build?.options.commands ?? [build?.options.command];
      expect({ name, commands }).toEqual({ name, commands: expect.arrayContaining([`node tools/build/compile.js ${data.root}`]) });
      expect({ name, dependsOn: build?.dependsOn }).toEqual({ name, dependsOn: ['^build'] });
      const outputs = build?.outputs?.map((output) => output.replace('{projectRoot}', data.root));
      expect({ name, outputs }).toEqual({ name, outputs: expect.arrayContaining([`{workspaceRoot}/dist/${data.root}`]) });
    }
    // The root project builds bench/ only; no project's build waits on a build of everything.
    expect(nodes.workspace.data.targets.build?.options.command).toBe('node tools/build/compile.js bench');
    expect(nodes.dashboard.data.targets.build?.options.command).toBe('npm run build:dashboard');
  });

  it('a change to a lib builds that lib and what depends on it, not the other libs', () => {
    expect(affectedBuilds('libs/webhook-policy/src/index.ts')).toEqual(['cli', 'gateway', 'generation', 'standalone', 'webhook-policy', 'webhooks', 'workspace']);
  });

  it('a change to one service builds that service and what composes it (standalone, cli, bench/ and test/), not its neighbours', () => {
    expect(affectedBuilds('apps/webhooks/src/main.ts')).toEqual(['cli', 'standalone', 'webhooks', 'workspace']);
    expect(affectedBuilds('apps/dashboard/src/api.ts')).toEqual(['dashboard']);
  });

  it("one project's build writes the layout npm run build writes, with the path aliases made relative", () => {
    // A copy of the libs (the build writes dist/ beside them), with the workspace's node_modules.
    for (const file of ['tsconfig.base.json', 'tsconfig.projects.json']) cpSync(join(ROOT, file), join(work, file));
    cpSync(join(ROOT, 'libs'), join(work, 'libs'), { recursive: true, filter: (source) => !/[/\\](dist|node_modules)$/.test(source) });
    symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'));
    const script = `process.exit(require(${JSON.stringify(join(ROOT, 'tools', 'build', 'compile.js'))}).compile(${JSON.stringify(work)}, ['libs/webhook-policy']) ? 0 : 1)`;
    const result = spawnSync(process.execPath, ['-e', script], { cwd: work, encoding: 'utf8', timeout: 240_000 });
    expect(result.stderr + result.stdout).toBe('');
    expect(result.status).toBe(0);
    const entry = join(work, 'dist', 'libs', 'webhook-policy', 'src', 'index.js');
    expect(readFileSync(entry, 'utf8')).not.toContain('@gen/');
    // What it references was built too (tsc -b), each in its own folder, and it loads.
    for (const lib of ['config', 'contracts', 'errors', 'transport']) expect(existsSync(join(work, 'dist', 'libs', lib, 'src', 'index.js'))).toBe(true);
    expect(existsSync(join(work, 'dist', 'libs', 'storage'))).toBe(false);
    const loaded = spawnSync(process.execPath, ['-e', `console.log(Object.keys(require(${JSON.stringify(entry)})).length > 0)`], { cwd: work, encoding: 'utf8' });
    expect(loaded.stdout.trim()).toBe('true');
  }, 300_000);
});
