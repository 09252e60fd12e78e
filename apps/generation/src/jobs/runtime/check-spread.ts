/**
 * The delay before a parked job's next status check, spread by up to `percent` of it either way.
 * Jobs admitted together (a batch's feeder pass, a burst of submits) would otherwise be checked in
 * the same round every time, and their upstream jobs, which take about as long, end in the same
 * round too: their collects and finishes then reach the process's event loop and the database as
 * one burst, and whatever else the process serves meanwhile (a synchronous submit) waits behind it.
 * Spread, each round's checks drift apart and the bursts flatten out.
 *
 * `notBefore` is a floor the spread never goes under (a provider's Retry-After).
 */
export function spreadCheckDelay(delayMs: number, percent: number, notBefore = 0, random: () => number = Math.random): number {
  if (delayMs <= 0 || percent <= 0) return Math.max(delayMs, notBefore);
  const spread = delayMs * (percent / 100) * (2 * random() - 1);
  return Math.max(notBefore, Math.round(delayMs + spread));
}
