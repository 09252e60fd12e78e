import { Injectable } from '@nestjs/common';
import type { GenerationDetailReply } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { isUnavailable } from '../../rpc/rpc-retries';
import type { GenerationCommand } from '../records/generation-command';
import { GetGeneration } from '../records/get-generation.service';
import { readDeliveries } from './list-generation-deliveries.service';

/**
 * The record and its webhook deliveries with their attempts (the dashboard's generation page); 404
 * for another account's generation. If the webhooks service does not answer, the record is still
 * shown, with the deliveries marked unavailable.
 */
@Injectable()
export class GetGenerationDetail {
  constructor(
    private readonly rpc: RpcClient,
    private readonly generations: GetGeneration,
  ) {}

  async execute(command: GenerationCommand): Promise<GenerationDetailReply> {
    const generation = await this.generations.execute(command);
    try {
      const reply = await readDeliveries(this.rpc, command);
      return { generation, deliveries: { available: true, message: null, data: reply.data } };
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      return {
        generation,
        deliveries: { available: false, message: 'The delivery log cannot be read right now. Reload the page in a moment.', data: [] },
      };
    }
  }
}
