import { Injectable } from '@nestjs/common';
import { RedeliverWebhookReply, RedeliverWebhookRequest, Subjects } from '@gen/contracts';
import { ConflictError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import type { GenerationCommand } from '../records/generation-command';
import { GetGeneration } from '../records/get-generation.service';

/** A new delivery (new delivery id) of a finished generation's event, to the generation's destination. */
@Injectable()
export class RedeliverWebhook {
  constructor(
    private readonly rpc: RpcClient,
    private readonly generations: GetGeneration,
  ) {}

  async execute(command: GenerationCommand): Promise<RedeliverWebhookReply> {
    const record = await this.generations.execute(command);
    if (record.status !== 'completed' && record.status !== 'failed') {
      throw new ConflictError('This generation has not finished; its webhook is sent when it does.');
    }
    return this.rpc.request<RedeliverWebhookReply, RedeliverWebhookRequest>(Subjects.webhooksRedeliver, { accountId: command.accountId, jobId: command.jobId });
  }
}
