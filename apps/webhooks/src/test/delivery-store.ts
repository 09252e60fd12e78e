import type { DataSource } from 'typeorm';
import { DeliveryAttemptsRepository } from '../deliveries/delivery-attempts.repository';
import { DeliveryReadsRepository } from '../deliveries/delivery-reads.repository';

/** The named methods of `target`, bound to it. */
function methods<T extends object, K extends keyof T>(target: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, (target[key] as (...args: unknown[]) => unknown).bind(target)])) as Pick<T, K>;
}

/** Both delivery repositories on one DataSource, under one roof for specs. */
export function deliveryStore(db: DataSource) {
  const attempts = new DeliveryAttemptsRepository(db);
  const reads = new DeliveryReadsRepository(db);
  return {
    attempts,
    reads,
    ...methods(attempts, ['insert', 'claim', 'recordAttempt', 'recordAttempts', 'releaseClaim', 'dueBy', 'failExhausted']),
    ...methods(reads, ['listForJob', 'attemptsOf', 'listTestsForKey', 'findForAccount']),
  };
}

export type DeliveryStore = ReturnType<typeof deliveryStore>;
