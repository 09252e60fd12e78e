import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { BalanceReply, OpenBillingAccountRequest, PlanName, Subjects } from '@gen/contracts';
import { ValidationError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import { ApiKeysService, CreatedApiKey } from '../auth/api-keys.service';
import { AuthRepository } from '../auth/auth.repository';
import { NewUser, UsersRepository } from '../dashboard/sessions/users.repository';

export interface ProvisionedAccount {
  accountId: string;
  name: string;
  balance: BalanceReply;
}

/** Creates accounts across auth and billing (operator CLI, standalone's demo account, sign-up). */
@Injectable()
export class ProvisioningService {
  constructor(
    private readonly auth: AuthRepository,
    private readonly keys: ApiKeysService,
    private readonly rpc: RpcClient,
    private readonly users: UsersRepository,
  ) {}

  async createAccount(name: string, plan: PlanName, credits: number): Promise<ProvisionedAccount> {
    const clean = name.trim();
    if (clean.length === 0 || clean.length > 200) throw new ValidationError('name: 1 to 200 characters.');
    const accountId = randomUUID();
    await this.auth.insertAccount({ id: accountId, name: clean });
    const balance = await this.rpc.request<BalanceReply, OpenBillingAccountRequest>(Subjects.billingAccountOpen, {
      accountId,
      plan,
      initialCredits: credits,
    });
    return { accountId, name: clean, balance };
  }

  /**
   * Sign-up: the account and its first user in one transaction, then billing opens the account with
   * the plan's starting grant (idempotent there). If billing cannot, the account and user are removed
   * again and the error goes back to the caller. Null when the email is already taken.
   */
  async createAccountForUser(user: Omit<NewUser, 'id' | 'accountId'>, plan: PlanName, credits: number): Promise<{ accountId: string; userId: string; name: string } | null> {
    const accountId = randomUUID();
    const userId = randomUUID();
    const name = user.email.slice(0, 200);
    if (!(await this.users.insertAccountWithUser({ id: accountId, name }, { ...user, id: userId, accountId }))) return null;
    try {
      await this.rpc.request<BalanceReply, OpenBillingAccountRequest>(Subjects.billingAccountOpen, { accountId, plan, initialCredits: credits });
    } catch (error) {
      await this.users.deleteAccountWithUser(accountId, userId);
      throw error;
    }
    return { accountId, userId, name };
  }

  createKey(accountId: string, name: string): Promise<CreatedApiKey> {
    return this.keys.create(accountId, name);
  }

  listAccounts(limit = 1000): Promise<Array<{ id: string; name: string; createdAt: Date }>> {
    return this.auth.listAccounts(limit);
  }

  countAccounts(): Promise<number> {
    return this.auth.countAccounts();
  }
}
