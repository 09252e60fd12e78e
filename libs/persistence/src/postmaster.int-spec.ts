import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkPostgresCanReach, EmbeddedPostgresError, readPostmaster, stopOrphanedPostmaster } from './postmaster';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

describe('a leftover postmaster.pid', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gen-postmaster-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const pidFile = (pid: number) => writeFileSync(join(dir, 'postmaster.pid'), `${pid}\n${dir}\n1700000000\n5432\n/tmp\n127.0.0.1\n  1234  5678\nready\n`);

  it('naming a process that is gone is removed, and nothing is signalled', async () => {
    pidFile(2 ** 22 + 17); // above Linux's pid_max default: never a live process
    expect(readPostmaster(dir)).toBeNull();
    expect(existsSync(join(dir, 'postmaster.pid'))).toBe(false);
    await expect(stopOrphanedPostmaster(dir)).resolves.toBeUndefined();
  });

  it('naming a live process that is not a PostgreSQL of this folder: removed, and that process is left alone', async () => {
    const bystander = spawn('sleep', ['30']);
    try {
      pidFile(bystander.pid as number);
      await stopOrphanedPostmaster(dir);
      expect(existsSync(join(dir, 'postmaster.pid'))).toBe(false);
      expect(bystander.exitCode).toBeNull();
      expect(bystander.killed).toBe(false);
    } finally {
      bystander.kill('SIGKILL');
    }
  });
});

describe('checkPostgresCanReach (root: PostgreSQL runs as the user postgres)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gen-reach-')); // mode 700, like /root
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it(isRoot ? 'refuses a data folder under a mode-700 folder, in one line naming it and the fix' : 'lets a non-root user use its own folders', () => {
    const check = () => checkPostgresCanReach(join(dir, 'data', 'pg'), null);
    if (!isRoot) return expect(check).not.toThrow();
    expect(check).toThrow(EmbeddedPostgresError);
    expect(check).toThrow(new RegExp(`cannot enter ${dir} \\(mode 700, owner uid 0\\) on the way to its data folder .*Fix: set DATA_DIR`));
    try {
      check();
    } catch (error) {
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it(isRoot ? 'refuses programs under a mode-700 folder (a checkout in /root)' : 'lets a non-root user run its own programs', () => {
    const bin = join(dir, 'app', 'node_modules', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'postgres'), '#!/bin/sh\n');
    chmodSync(join(bin, 'postgres'), 0o755);
    const check = () => checkPostgresCanReach(join(tmpdir(), 'reachable-data', 'pg'), bin);
    if (!isRoot) return expect(check).not.toThrow();
    expect(check).toThrow(new RegExp(`cannot enter ${dir} .* on the way to its programs in ${bin}\\. Fix: install the service`));
  });

  it('accepts folders the user postgres can reach', () => {
    chmodSync(dir, 0o755);
    expect(() => checkPostgresCanReach(join(dir, 'data', 'pg'), null)).not.toThrow();
  });
});
