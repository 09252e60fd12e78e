/**
 * The process's attempt slots (`maxInFlight`): attempts running, plus those a claim statement in
 * flight may start. New deliveries may fill `newDeliveryPercent` of them; the rest is kept for
 * retries, so that a flood of new events does not make scheduled retries late.
 */
export class AttemptSlots {
  private running = 0;
  private claiming = 0;
  private readonly maxForNew: number;

  constructor(
    private readonly max: number,
    newDeliveryPercent: number,
  ) {
    this.maxForNew = Math.max(1, Math.floor((max * newDeliveryPercent) / 100));
  }

  /** Attempts running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Slots free for any attempt. */
  free(): number {
    return this.max - this.running - this.claiming;
  }

  /** Slots free for a new delivery's attempt 1. */
  freeForNew(): number {
    return this.maxForNew - this.running - this.claiming;
  }

  /** Holds `count` slots while a statement that may claim that many attempts is in flight. */
  reserve(count: number): void {
    this.claiming += count;
  }

  release(count: number): void {
    this.claiming -= count;
  }

  started(): void {
    this.running++;
  }

  ended(): void {
    this.running--;
  }
}
