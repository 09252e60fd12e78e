import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import distributedSetup from '../distributed/global-setup';

/**
 * The distributed suite's checks (the build, PostgreSQL, NATS), then the previous release of every
 * service built from release/releases.json (tools/compat/previous-release.mjs: a git worktree of the
 * release's commit, npm ci, build; kept per commit). The test files read where it is from COMPAT_RELEASES.
 */
export default async function globalSetup(): Promise<void> {
  await distributedSetup();
  const root = join(__dirname, '..', '..');
  const json = execFileSync(process.execPath, [join(root, 'tools', 'compat', 'previous-release.mjs'), '--json'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20,
  });
  process.env.COMPAT_RELEASES = JSON.stringify(JSON.parse(json));
}
