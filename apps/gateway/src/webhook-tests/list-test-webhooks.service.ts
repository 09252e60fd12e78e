import { Injectable } from '@nestjs/common';
import { ListTestWebhooksReply, ListTestWebhooksRequest, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { ApiKeysService } from '../auth/api-keys.service';

/** The latest test events of one of the account's keys (revoked ones too), newest first, with their attempts. */
@Injectable()
export class ListTestWebhooks {
  constructor(
    private readonly rpc: RpcClient,
    private readonly keys: ApiKeysService,
  ) {}

  async execute({ accountId, apiKeyId, limit }: { accountId: string; apiKeyId: string; limit: number }): Promise<ListTestWebhooksReply> {
    await this.keys.get(accountId, apiKeyId); // 404 unless it is one of the account's keys
    return this.rpc.request<ListTestWebhooksReply, ListTestWebhooksRequest>(Subjects.webhooksTestList, { accountId, apiKeyId, limit });
  }
}
