import { Injectable } from '@nestjs/common';
import { GenerationType, JobStatus, ListGenerationsReply, ListGenerationsRequest, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { withRpcRetries } from '../rpc/rpc-retries';

export interface ListGenerationsCommand {
  accountId: string;
  /** Page size; 20 when absent. */
  limit?: number;
  cursor?: string;
  status?: JobStatus;
  type?: GenerationType;
}

/** The account's generations, newest first, in cursor pages. */
@Injectable()
export class ListGenerations {
  constructor(private readonly rpc: RpcClient) {}

  execute(command: ListGenerationsCommand): Promise<ListGenerationsReply> {
    const { accountId, limit, cursor, status, type } = command;
    return withRpcRetries(() =>
      this.rpc.request<ListGenerationsReply, ListGenerationsRequest>(Subjects.generationList, { accountId, limit: limit ?? 20, cursor, status, type }),
    );
  }
}
