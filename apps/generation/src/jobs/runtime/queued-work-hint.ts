import { Injectable } from '@nestjs/common';

/**
 * Whether this process may know of queued jobs it has not looked for since. A freed slot looks for
 * work (a statement) only while it may: a look that found the queue empty, with nothing queued here
 * since, says a freed slot would find nothing. Jobs queued by other replicas are found by polling,
 * as they always were, and any look that finds work makes freed slots look again.
 */
@Injectable()
export class QueuedWorkHint {
  private version = 0;
  private seenEmpty = false;

  /** A job may have been queued here: a submit left queued, a claim handed back, a lease reclaimed. */
  queued(): void {
    this.version++;
    this.seenEmpty = false;
  }

  /** A look at the queue begins: pass the result to `looked` when it ends. */
  look(): number {
    return this.version;
  }

  /** A look's result: empty only counts when nothing was queued while it ran. */
  looked(look: number, foundWork: boolean): void {
    if (foundWork) this.seenEmpty = false;
    else if (look === this.version) this.seenEmpty = true;
  }

  /** The last look found nothing queued, and nothing was queued here since. */
  get empty(): boolean {
    return this.seenEmpty;
  }
}
