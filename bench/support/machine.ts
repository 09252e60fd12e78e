import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { ROOT } from './processes';

/** The 1, 5 and 15 minute load averages, as `uptime` prints them. */
export function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

export function coreCount(): number {
  return cpus().length;
}

/**
 * The commit the run measures (dist/ is built from the working tree): its short hash and subject,
 * and whether tracked files had uncommitted changes.
 */
export function commitMeasured(): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  try {
    const head = git('log', '-1', '--format=%h %s');
    const dirty = git('status', '--porcelain', '--untracked-files=no') !== '';
    return `${head}${dirty ? ' (with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
