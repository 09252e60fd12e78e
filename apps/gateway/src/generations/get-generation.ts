import { Injectable } from '@nestjs/common';
import { GenerationRecord, GetGenerationRequest, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { withRpcRetries } from '../rpc/rpc-retries';
import type { GenerationCommand } from './generation-command';

/** One generation of the account (`404 not_found` for an unknown id and for another account's). */
@Injectable()
export class GetGeneration {
  constructor(private readonly rpc: RpcClient) {}

  execute({ accountId, jobId }: GenerationCommand): Promise<GenerationRecord> {
    return withRpcRetries(() => this.rpc.request<GenerationRecord, GetGenerationRequest>(Subjects.generationGet, { accountId, jobId }));
  }
}
