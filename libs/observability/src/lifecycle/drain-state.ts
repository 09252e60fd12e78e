/**
 * Whether this process is shutting down. Set first thing on SIGTERM: /readyz answers 503 from then
 * on (the orchestrator stops routing to us), HTTP responses carry `Connection: close` (clients stop
 * reusing our sockets), and components stop taking new work.
 */
export class DrainState {
  private since: number | null = null;
  private readonly listeners = new Set<() => void>();

  get draining(): boolean {
    return this.since !== null;
  }

  begin(): void {
    if (this.since !== null) return;
    this.since = Date.now();
    for (const listener of this.listeners) listener();
  }

  /** Calls `listener` when draining begins (at once if it already has). */
  onDrain(listener: () => void): void {
    if (this.draining) listener();
    else this.listeners.add(listener);
  }
}
