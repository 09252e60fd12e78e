import { Injectable } from '@nestjs/common';
import type { OverviewReply } from '@gen/contracts';
import { ApiKeysService } from '../auth/api-keys.service';
import { ListGenerations } from '../generations/list-generations.service';
import { GetCredits } from '../plans/get-credits.service';

/** Generations the overview shows. */
const RECENT = 5;

export interface AccountOverviewCommand {
  accountId: string;
  /** As the session knows them: the account's name and the signed-in user's email. */
  accountName: string;
  email: string;
}

/** The dashboard's overview: the account's plan, limits and credits, its active keys and latest generations. */
@Injectable()
export class GetAccountOverview {
  constructor(
    private readonly credits: GetCredits,
    private readonly generations: ListGenerations,
    private readonly keys: ApiKeysService,
  ) {}

  async execute({ accountId, accountName, email }: AccountOverviewCommand): Promise<OverviewReply> {
    const [balance, recent, keys] = await Promise.all([
      this.credits.execute({ accountId }),
      this.generations.execute({ accountId, limit: RECENT }),
      this.keys.list(accountId),
    ]);
    return {
      account: { id: accountId, name: accountName, email },
      plan: balance.plan,
      limits: balance.limits,
      credits: { available: balance.available, held: balance.held },
      active_keys: keys.filter((k) => k.revokedAt === null).length,
      recent_generations: recent.data,
    };
  }
}
