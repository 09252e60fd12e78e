import { Inject, Injectable } from '@nestjs/common';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AccountEntity } from '../auth/account.entity';
import { AUTH_DB } from '../settings/gateway.tokens';
import { AccountMemberEntity } from './account-member.entity';
import { UserEntity } from '../users/user.entity';

/** `emailVerifiedAt`: set for users an operator makes (they vouch for the address); a sign-up leaves it unset. */
export type NewUser = Pick<UserEntity, 'id' | 'email' | 'emailKey' | 'passwordHash'> & { accountId: string; emailVerifiedAt?: Date | null };

/**
 * Accounts written together with their first dashboard user (sign-up, `accounts create --email`,
 * standalone's demo account): provisioning's writes, which sessions reach through provisioning.
 */
@Injectable()
export class UserAccountsRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /** The account and its first user, its owner, in one transaction; false (nothing written) when the email is taken. */
  async insertAccountWithUser(account: Pick<AccountEntity, 'id' | 'name'>, user: NewUser): Promise<boolean> {
    try {
      await this.db.transaction(async (tx) => {
        await tx.getRepository(AccountEntity).insert(account);
        await tx.getRepository(UserEntity).insert(user);
        await tx.getRepository(AccountMemberEntity).insert({ accountId: account.id, userId: user.id, role: 'owner' });
      });
      return true;
    } catch (error) {
      if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  /** Undoes insertAccountWithUser when the rest of sign-up failed (sessions go with the user). */
  async deleteAccountWithUser(accountId: string, userId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.getRepository(UserEntity).delete({ id: userId, accountId });
      await tx.query(`DELETE FROM accounts a WHERE a.id = $1 AND NOT EXISTS (SELECT 1 FROM api_keys k WHERE k.account_id = a.id)`, [accountId]);
    });
  }
}
