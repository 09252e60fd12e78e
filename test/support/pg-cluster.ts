import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@gen/persistence';

/** Where Debian installs PostgreSQL's server binaries (`/usr/lib/postgresql/<major>/bin`), the newest major. */
export function debianPostgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const majors = readdirSync(root).filter((name) => /^\d+$/.test(name)).sort((a, b) => Number(b) - Number(a));
  const bin = majors.map((major) => join(root, major, 'bin')).find((dir) => existsSync(join(dir, 'pg_ctl')));
  return bin ?? null;
}

/**
 * A PostgreSQL cluster of a test's own (initdb, pg_ctl from the Debian packages), on its own port
 * and data folder, that the test may restart or stop: the suite's shared server is never touched.
 * As root, the server runs as the OS user `postgres` (it refuses root), in a folder it can enter.
 */
export class PgCluster {
  private constructor(
    private readonly bin: string,
    readonly dir: string,
    readonly port: number,
  ) {}

  /** The admin URL (user postgres, trust, database postgres). */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  static async create(bin: string): Promise<PgCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'gen-pgcluster-'));
    chmodSync(dir, 0o777);
    const cluster = new PgCluster(bin, dir, await freePort());
    cluster.run('initdb', ['-D', cluster.data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
    cluster.ctl('start');
    return cluster;
  }

  private get data(): string {
    return join(this.dir, 'data');
  }

  /** `pg_ctl restart -m <mode>` (fast: sessions are terminated, 57P01; immediate: no shutdown checkpoint, crash recovery at start). */
  restart(mode: 'fast' | 'immediate'): void {
    this.ctl('restart', ['-m', mode]);
  }

  /** `pg_ctl start` (after stop). */
  start(): void {
    this.ctl('start');
  }

  stop(): void {
    try {
      this.ctl('stop', ['-m', 'immediate']);
    } catch {
      // already stopped
    }
  }

  remove(): void {
    this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private ctl(action: string, extra: string[] = []): void {
    this.run('pg_ctl', [
      action,
      '-D',
      this.data,
      '-w',
      '-t',
      '60',
      '-l',
      join(this.dir, 'server.log'),
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`,
      ...extra,
    ]);
  }

  private run(tool: string, args: string[]): void {
    const path = join(this.bin, tool);
    const asRoot = process.getuid?.() === 0;
    execFileSync(asRoot ? 'runuser' : path, asRoot ? ['-u', 'postgres', '--', path, ...args] : args, { stdio: 'pipe', timeout: 90_000, cwd: this.dir });
  }
}
