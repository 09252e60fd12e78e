/**
 * What a benchmark made (databases, streams, folders, processes), undone whatever happens: at the
 * normal end, on a failure, on Ctrl-C / SIGTERM and when the watchdog fires. Steps run newest first
 * (a process is stopped before its database is dropped), each at most once.
 */
type Step = () => Promise<unknown>;

const pending: Array<{ label: string; step: Step }> = [];

/** Registers an undo step; the returned function runs it now (once) and forgets it. */
export function deferCleanup(label: string, step: Step): () => Promise<void> {
  const entry = { label, step };
  pending.push(entry);
  return async () => {
    const index = pending.indexOf(entry);
    if (index < 0) return;
    pending.splice(index, 1);
    await runStep(entry);
  };
}

/** Runs the given undo functions newest first (those deferCleanup returned), each even if one before fails. */
export async function undoAll(undo: Array<() => Promise<void>>): Promise<void> {
  for (const step of [...undo].reverse()) await step();
}

async function runStep({ label, step }: { label: string; step: Step }): Promise<void> {
  await step().catch((error: unknown) => process.stderr.write(`cleanup (${label}): ${error instanceof Error ? error.message : String(error)}\n`));
}

/** Runs every step still registered, newest first. */
export async function cleanupAll(): Promise<void> {
  while (pending.length > 0) await runStep(pending.pop() as { label: string; step: Step });
}

/**
 * Runs `main` with the safety nets: a watchdog (`limitSeconds`), Ctrl-C and SIGTERM each clean
 * up and exit non-zero; a failure cleans up, prints the error and exits 1. A second Ctrl-C exits
 * at once (child processes are still killed by their exit handler).
 */
export function runBenchmark(name: string, limitSeconds: number, main: () => Promise<void>): void {
  let stopping = false;
  const stop = (why: string, code: number) => {
    if (stopping) process.exit(code);
    stopping = true;
    process.stderr.write(`${name}: ${why}; cleaning up\n`);
    void cleanupAll().finally(() => process.exit(code));
  };
  setTimeout(() => stop(`still running after ${limitSeconds} s`, 2), limitSeconds * 1000).unref();
  process.on('SIGINT', () => stop('interrupted', 130));
  process.on('SIGTERM', () => stop('terminated', 143));
  main()
    .then(cleanupAll)
    .then(
      () => process.exit(process.exitCode ?? 0),
      async (error: unknown) => {
        process.stderr.write(`${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        await cleanupAll();
        process.exit(1);
      },
    );
}
