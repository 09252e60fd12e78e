import { Injectable } from '@nestjs/common';
import { LedgerReply, LedgerRequest, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';

export interface CreditLedgerCommand {
  accountId: string;
  /** Page size; 20 when absent. */
  limit?: number;
  cursor?: string;
}

/** A page of the account's credit ledger, newest first, from billing. */
@Injectable()
export class GetCreditLedger {
  constructor(private readonly rpc: RpcClient) {}

  execute({ accountId, limit, cursor }: CreditLedgerCommand): Promise<LedgerReply> {
    return this.rpc.request<LedgerReply, LedgerRequest>(Subjects.billingLedger, { accountId, limit: limit ?? 20, cursor });
  }
}
