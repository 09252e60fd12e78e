import { Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import { BalanceReply, OpenBillingAccountRequest, PlanName, Subjects } from '@gen/contracts';
import { NotFoundError, ValidationError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import { ApiKeysService, CreatedApiKey } from '../auth/api-keys.service';
import { AuthRepository } from '../auth/auth.repository';
import { isEmailAddress } from '../users/email-address';
import { PasswordHasher } from '../users/password-hasher';
import { NewUser, UserAccountsRepository } from '../memberships/user-accounts.repository';

export interface ProvisionedAccount {
  accountId: string;
  name: string;
  balance: BalanceReply;
}

/** An account someone can sign in to the dashboard with: its email and a generated password, shown once. */
export interface AccountWithSignIn {
  accountId: string;
  name: string;
  email: string;
  /** Generated, returned this once, stored only as a scrypt hash. */
  password: string;
}


/** Creates accounts across auth and billing (operator CLI, standalone's demo account, sign-up). */
@Injectable()
export class ProvisioningService {
  constructor(
    private readonly auth: AuthRepository,
    private readonly keys: ApiKeysService,
    private readonly rpc: RpcClient,
    private readonly users: UserAccountsRepository,
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
  async createAccountForUser(
    user: Omit<NewUser, 'id' | 'accountId'>,
    plan: PlanName,
    credits: number,
    accountName = user.email.slice(0, 200),
  ): Promise<{ accountId: string; userId: string; name: string } | null> {
    const accountId = randomUUID();
    const userId = randomUUID();
    const name = accountName;
    if (!(await this.users.insertAccountWithUser({ id: accountId, name }, { ...user, id: userId, accountId }))) return null;
    try {
      await this.rpc.request<BalanceReply, OpenBillingAccountRequest>(Subjects.billingAccountOpen, { accountId, plan, initialCredits: credits });
    } catch (error) {
      await this.users.deleteAccountWithUser(accountId, userId);
      throw error;
    }
    return { accountId, userId, name };
  }

  /**
   * An account and its dashboard user with a generated password (operators: `accounts create
   * --email`; standalone's demo account), so it can sign in to the dashboard at once. Null when the
   * email already has an account.
   */
  async createAccountWithSignIn(name: string, email: string, plan: PlanName, credits: number): Promise<AccountWithSignIn | null> {
    const clean = name.trim();
    if (clean.length === 0 || clean.length > 200) throw new ValidationError('name: 1 to 200 characters.');
    const address = email.trim();
    if (!isEmailAddress(address)) throw new ValidationError('email: an address such as name@example.com.');
    // 120 random bits in 20 URL-safe characters: within the dashboard's 10 to 200, easy to copy.
    const password = randomBytes(15).toString('base64url');
    // An operator names the address: it counts as verified (docs/guide/dashboard.md, "Sign-up").
    const user = { email: address, emailKey: address.toLowerCase(), passwordHash: await new PasswordHasher().hash(password), emailVerifiedAt: new Date() };
    const created = await this.createAccountForUser(user, plan, credits, clean);
    return created ? { accountId: created.accountId, name: created.name, email: address, password } : null;
  }

  createKey(accountId: string, name: string): Promise<CreatedApiKey> {
    return this.keys.create(accountId, name);
  }

  listAccounts(limit = 1000): Promise<Array<{ id: string; name: string; createdAt: Date }>> {
    return this.auth.listAccounts(limit);
  }

  /** Refuses an account id that names no account (404-like: the CLI's exit 1). */
  async requireAccount(accountId: string): Promise<void> {
    if (!(await this.auth.findAccount(accountId))) throw new NotFoundError('No such account.');
  }

  countAccounts(): Promise<number> {
    return this.auth.countAccounts();
  }
}
