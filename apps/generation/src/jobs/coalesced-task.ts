/**
 * A task that runs one at a time: a call while it runs asks for one more run right after it (any
 * number of such calls make one run), so work found meanwhile is never missed and never doubled.
 */
export class CoalescedTask {
  private running?: Promise<void>;
  private again = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
    /** Called for the run asked for meanwhile (the owner's entry point, which may decline it, e.g. when stopping). */
    private readonly rerun: () => void,
  ) {}

  run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.work()
      .catch(this.onError)
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.rerun();
        }
      });
  }

  /** The run under way, if any (shutdown waits for it). */
  current(): Promise<void> | undefined {
    return this.running;
  }
}
