import { Injectable } from '@nestjs/common';
import { CancelGenerationReply, CancelGenerationRequest, GenerationRecord, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { withRpcRetries } from '../rpc/rpc-retries';
import type { GenerationCommand } from './records/generation-command';

/** Cancels a queued or running generation of the account (docs/guide/generations.md, "Cancel"); `409` once finished. */
@Injectable()
export class CancelGeneration {
  constructor(private readonly rpc: RpcClient) {}

  async execute({ accountId, jobId }: GenerationCommand): Promise<GenerationRecord> {
    // Canceling twice answers the same: safe to send again to another replica.
    const reply = await withRpcRetries(() =>
      this.rpc.request<CancelGenerationReply, CancelGenerationRequest>(Subjects.generationCancel, { accountId, jobId }),
    );
    return reply.record;
  }
}
