import { Injectable } from '@nestjs/common';
import { KeyCaps, KeyWithCapsView, ListKeyCapsReply, ListKeyCapsRequest, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { ApiKeysService } from '../auth/api-keys.service';
import { toKeyView } from './key-view';

/** The account's keys, each with its caps and what it has spent today and this month (UTC). */
@Injectable()
export class ListKeys {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly rpc: RpcClient,
  ) {}

  async execute({ accountId }: { accountId: string }): Promise<KeyWithCapsView[]> {
    const keys = (await this.keys.list(accountId)).map(toKeyView);
    if (keys.length === 0) return [];
    const caps = await this.rpc.request<ListKeyCapsReply, ListKeyCapsRequest>(Subjects.billingKeyCapsList, {
      accountId,
      keyIds: keys.map((k) => k.id),
    });
    const byKey = new Map(caps.data.map(({ key_id, ...rest }) => [key_id, rest]));
    return keys.map((key) => ({ ...key, caps: byKey.get(key.id) as KeyCaps }));
  }
}
