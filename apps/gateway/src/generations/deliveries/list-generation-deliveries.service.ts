import { Injectable } from '@nestjs/common';
import { ListWebhookDeliveriesReply, ListWebhookDeliveriesRequest, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import type { GenerationCommand } from '../records/generation-command';
import { GetGeneration } from '../records/get-generation.service';

/** The webhooks service's delivery log of one generation (oldest first), for a generation already known to be the account's. */
export function readDeliveries(rpc: RpcClient, { accountId, jobId }: GenerationCommand): Promise<ListWebhookDeliveriesReply> {
  return rpc.request<ListWebhookDeliveriesReply, ListWebhookDeliveriesRequest>(Subjects.webhooksDeliveriesList, { accountId, jobId });
}

/** The webhook deliveries of one of the account's generations, with their attempts. */
@Injectable()
export class ListGenerationDeliveries {
  constructor(
    private readonly rpc: RpcClient,
    private readonly generations: GetGeneration,
  ) {}

  async execute(command: GenerationCommand): Promise<ListWebhookDeliveriesReply> {
    await this.generations.execute(command); // 404 unless it is the account's generation
    return readDeliveries(this.rpc, command);
  }
}
