import { Injectable } from '@nestjs/common';
import { GenerationRecord, GetGenerationRequest, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { withRpcRetries } from '../../rpc/rpc-retries';
import { FinishedRecords } from './finished-records';
import type { GenerationCommand } from './generation-command';

/**
 * One generation of the account (`404 not_found` for an unknown id and for another account's). A
 * finished one is answered from the gateway's memory when it is there (FinishedRecords).
 */
@Injectable()
export class GetGeneration {
  constructor(
    private readonly rpc: RpcClient,
    private readonly finished: FinishedRecords,
  ) {}

  async execute({ accountId, jobId }: GenerationCommand): Promise<GenerationRecord> {
    const known = this.finished.get(accountId, jobId);
    if (known) return known;
    const record = await withRpcRetries(() => this.rpc.request<GenerationRecord, GetGenerationRequest>(Subjects.generationGet, { accountId, jobId }));
    this.finished.remember(accountId, record);
    return record;
  }
}
