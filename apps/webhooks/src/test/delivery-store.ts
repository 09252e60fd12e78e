import { bindMethods } from '@gen/testing';
import type { DataSource } from 'typeorm';
import { DeliveryAttemptsRepository } from '../deliveries/delivery-attempts.repository';
import { DeliveryReadsRepository } from '../deliveries/delivery-reads.repository';

/** Both delivery repositories on one DataSource, under one roof for specs. */
export function deliveryStore(db: DataSource) {
  const attempts = new DeliveryAttemptsRepository(db);
  const reads = new DeliveryReadsRepository(db);
  return {
    attempts,
    reads,
    ...bindMethods(attempts, ['insert', 'claim', 'recordAttempt', 'recordAttempts', 'releaseClaim', 'dueBy', 'failExhausted']),
    ...bindMethods(reads, ['listForJob', 'attemptsOf', 'listTestsForKey', 'findForAccount']),
  };
}

export type DeliveryStore = ReturnType<typeof deliveryStore>;
