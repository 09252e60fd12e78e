import { Inject, Injectable } from '@nestjs/common';
import { retryTransient } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { WEBHOOKS_DB } from '../config/webhooks.tokens';
import { AttemptEntity } from './attempt.entity';
import { DeliveryEntity } from './delivery.entity';

/** The customer's reads of deliveries and their attempts, each scoped by the account; run again after a transient failure. */
@Injectable()
export class DeliveryReadsRepository {
  constructor(@Inject(WEBHOOKS_DB) private readonly db: DataSource) {}

  /** The deliveries of one job of one account, oldest first. Customer reads run again after a transient failure. */
  listForJob(accountId: string, jobId: string): Promise<DeliveryEntity[]> {
    return retryTransient(() => this.db.getRepository(DeliveryEntity).find({ where: { accountId, jobId }, order: { createdAt: 'ASC', id: 'ASC' } }));
  }

  /** The attempts of the given deliveries of one account. */
  async attemptsOf(accountId: string, deliveryIds: string[]): Promise<AttemptEntity[]> {
    if (deliveryIds.length === 0) return [];
    return retryTransient(() =>
      this.db
        .getRepository(AttemptEntity)
        .createQueryBuilder('a')
        .innerJoin(DeliveryEntity, 'd', 'd.id = a.delivery_id')
        .where('d.account_id = :accountId AND a.delivery_id IN (:...deliveryIds)', { accountId, deliveryIds })
        .orderBy('a.delivery_id')
        .addOrderBy('a.number')
        .getMany(),
    );
  }

  /** The latest test events of one key of one account, newest first. */
  listTestsForKey(accountId: string, apiKeyId: string, limit: number): Promise<DeliveryEntity[]> {
    return retryTransient(() =>
      this.db.getRepository(DeliveryEntity).find({ where: { accountId, apiKeyId, test: true }, order: { createdAt: 'DESC', id: 'DESC' }, take: limit }),
    );
  }

  findForAccount(accountId: string, deliveryId: string): Promise<DeliveryEntity | null> {
    return retryTransient(() => this.db.getRepository(DeliveryEntity).findOneBy({ accountId, id: deliveryId }));
  }
}
