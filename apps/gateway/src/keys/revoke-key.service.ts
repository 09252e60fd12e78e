import { Injectable } from '@nestjs/common';
import { AuditService } from '../audit-log/audit.service';
import { ApiKeysService } from '../auth/api-keys.service';
import type { KeyCommand } from './key-command';

/** Revokes a key: 401 on the API at once (every gateway is told), listed as revoked. */
@Injectable()
export class RevokeKey {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly audit: AuditService,
  ) {}

  async execute({ accountId, keyId, actor }: KeyCommand): Promise<void> {
    await this.keys.revoke(accountId, keyId);
    const key = await this.keys.get(accountId, keyId);
    await this.audit.record({ accountId, actor, action: 'key.revoked', target: key.id, details: { name: key.name } });
  }
}
