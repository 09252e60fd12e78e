import { Injectable } from '@nestjs/common';
import { Subjects, UsageReply, UsageRequest } from '@gen/contracts';
import { RpcClient } from '@gen/transport';

/** The account's spending per day and model over the last `days` days (UTC, today included), from billing. */
@Injectable()
export class GetUsageSummary {
  constructor(private readonly rpc: RpcClient) {}

  execute({ accountId, days }: { accountId: string; days: number }): Promise<UsageReply> {
    return this.rpc.request<UsageReply, UsageRequest>(Subjects.billingUsage, { accountId, days });
  }
}
