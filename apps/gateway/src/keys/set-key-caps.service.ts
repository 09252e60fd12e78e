import { Injectable } from '@nestjs/common';
import { KeyCapView, SetKeyCapsRequest, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { AuditService } from '../audit-log/audit.service';
import { ApiKeysService } from '../auth/api-keys.service';
import type { KeyCommand } from './key-command';

/** A number sets a cap, null removes it, an absent field keeps it. */
export interface SetKeyCapsCommand extends KeyCommand {
  per_day?: number | null;
  per_month?: number | null;
}

/**
 * Sets or removes a key's spending caps (docs/guide/limits.md, "Spending caps"; billing checks the
 * values: whole credits, at least 1). The key must be one of the account's (404 otherwise, as for every key route).
 */
@Injectable()
export class SetKeyCaps {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly rpc: RpcClient,
    private readonly audit: AuditService,
  ) {}

  async execute({ accountId, keyId, actor, per_day, per_month }: SetKeyCapsCommand): Promise<KeyCapView> {
    const key = await this.keys.get(accountId, keyId);
    const view = await this.rpc.request<KeyCapView, SetKeyCapsRequest>(Subjects.billingKeyCapsSet, { accountId, keyId, perDay: per_day, perMonth: per_month });
    await this.audit.record({
      accountId,
      actor,
      action: 'key.caps_set',
      target: key.id,
      details: { name: key.name, per_day: view.per_day, per_month: view.per_month },
    });
    return view;
  }
}
