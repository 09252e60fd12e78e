import { Injectable } from '@nestjs/common';
import { Lane, LanedBatchQueue } from '@gen/persistence';
import { PaymentsRepository, type Restriction } from './payments.repository';

/**
 * The restriction check every reserve makes: concurrent reserves share one statement
 * (`account_id = ANY(...)`) instead of one round trip each, which had become half of a sync
 * generation's statements (bench/HISTORY.md, issue 34).
 */
@Injectable()
export class RestrictionsReader {
  private readonly queue: LanedBatchQueue<string, Restriction | null>;

  constructor(repository: PaymentsRepository) {
    this.queue = new LanedBatchQueue(async (accountIds) => {
      const found = await repository.restrictionsOf([...new Set(accountIds)]);
      return accountIds.map((id) => found.get(id) ?? null);
    }, { maxBatch: 500 });
  }

  /** The account's restriction, or null. `accountId` is a UUID in lower case. */
  read(accountId: string, lane: Lane = 'interactive'): Promise<Restriction | null> {
    return this.queue.push(accountId, lane);
  }
}
