import { accessSync, constants, mkdtempSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The memory-backed folder Linux offers every process. */
const SHARED_MEMORY = '/dev/shm';
/** Room a bench's folders need at most (outputs of a few thousand jobs, an embedded cluster). */
const ROOM_NEEDED_BYTES = 1024 ** 3;

/**
 * Where a bench puts the folders it hands the services (DATA_DIR, STORAGE_DIR): `BENCH_SCRATCH_DIR`
 * when set, else /dev/shm when it is writable with a gigabyte free, else the system's temp folder.
 *
 * A benchmark measures the service's CPU, and every output is a new file. On this project's machine
 * the disk's file creation alone cost 1,332 µs of kernel CPU (`open` with O_CREAT|O_EXCL, against 18
 * on /dev/shm and 7 to reopen an existing file), varying from day to day with the host: it was most of
 * a provider job's CPU in bench:guard on such a day (bench/HISTORY.md, issue 34).
 */
export function scratchRoot(): string {
  const chosen = process.env.BENCH_SCRATCH_DIR;
  if (chosen) return chosen;
  try {
    accessSync(SHARED_MEMORY, constants.W_OK);
    const fs = statfsSync(SHARED_MEMORY);
    if (fs.bavail * fs.bsize >= ROOM_NEEDED_BYTES) return SHARED_MEMORY;
  } catch {
    // No /dev/shm (not Linux, or a container without it): the temp folder.
  }
  return tmpdir();
}

/** A new folder under scratchRoot(), named `prefix` and a random suffix (the caller removes it). */
export function scratchFolder(prefix: string): string {
  return mkdtempSync(join(scratchRoot(), prefix));
}
