import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../gateway.tokens';
import { AccountEntity } from './account.entity';
import { ApiKeyEntity } from './api-key.entity';

/** Every query of the auth schema. Reads of a customer's keys take the account id. */
@Injectable()
export class AuthRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  async insertAccount(account: Pick<AccountEntity, 'id' | 'name'>): Promise<void> {
    await this.db.getRepository(AccountEntity).insert(account);
  }

  findAccount(accountId: string): Promise<AccountEntity | null> {
    return this.db.getRepository(AccountEntity).findOneBy({ id: accountId });
  }

  listAccounts(limit: number): Promise<AccountEntity[]> {
    return this.db.getRepository(AccountEntity).find({ order: { createdAt: 'ASC' }, take: limit });
  }

  async countAccounts(): Promise<number> {
    return this.db.getRepository(AccountEntity).count();
  }

  async insertKey(key: Omit<ApiKeyEntity, 'createdAt' | 'lastUsedAt' | 'revokedAt'>): Promise<ApiKeyEntity> {
    await this.db.getRepository(ApiKeyEntity).insert(key);
    return (await this.db.getRepository(ApiKeyEntity).findOneBy({ id: key.id })) as ApiKeyEntity;
  }

  /** By public lookup id, for authentication (the caller then compares the hash in constant time). */
  findKeyByLookupId(lookupId: string): Promise<ApiKeyEntity | null> {
    return this.db.getRepository(ApiKeyEntity).findOneBy({ lookupId });
  }

  findKey(accountId: string, keyId: string): Promise<ApiKeyEntity | null> {
    return this.db.getRepository(ApiKeyEntity).findOneBy({ id: keyId, accountId });
  }

  /** Internal lookup by key id (webhook secret for the dispatcher); not reachable from customer input. */
  findKeyById(keyId: string): Promise<ApiKeyEntity | null> {
    return this.db.getRepository(ApiKeyEntity).findOneBy({ id: keyId });
  }

  listKeys(accountId: string): Promise<ApiKeyEntity[]> {
    return this.db.getRepository(ApiKeyEntity).find({ where: { accountId }, order: { createdAt: 'DESC' } });
  }

  async revokeKey(accountId: string, keyId: string): Promise<boolean> {
    const result = await this.db
      .createQueryBuilder()
      .update(ApiKeyEntity)
      .set({ revokedAt: () => 'now()' })
      .where('id = :keyId AND account_id = :accountId AND revoked_at IS NULL', { keyId, accountId })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /**
   * Sets an active key's webhook URL and, if it has no secret yet, `secretIfNone` (encrypted).
   * Returns the key's stored secret afterwards (null if none), or undefined when no active key matched.
   */
  async setActiveKeyWebhookUrl(accountId: string, keyId: string, url: string | null, secretIfNone: string | null): Promise<string | null | undefined> {
    const rows = await sqlRows<{ webhook_secret: string | null }>(
      this.db,
      `UPDATE api_keys SET webhook_url = $3, webhook_secret = COALESCE(webhook_secret, $4)
        WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING webhook_secret`,
      [keyId, accountId, url, secretIfNone],
    );
    return rows.length === 0 ? undefined : rows[0].webhook_secret;
  }

  async setActiveKeyWebhookSecret(accountId: string, keyId: string, secret: string): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(
      this.db,
      `UPDATE api_keys SET webhook_secret = $3 WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING id`,
      [keyId, accountId, secret],
    );
    return rows.length > 0;
  }

  /** Best effort, at most once a minute per key: a write per request would cost more than it tells. */
  async touchKey(keyId: string): Promise<void> {
    await this.db.query(
      `UPDATE api_keys SET last_used_at = now() WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [keyId],
    );
  }
}
