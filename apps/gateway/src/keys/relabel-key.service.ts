import { Injectable } from '@nestjs/common';
import type { KeyView } from '@gen/contracts';
import { AuditService } from '../audit-log/audit.service';
import type { ApiKeyScope } from '../auth/api-key.entity';
import { ApiKeysService } from '../auth/api-keys.service';
import type { KeyCommand } from './key-command';
import { toKeyView } from './key-view';

/** A new name and/or scopes (scopes apply from the key's next request); each change is its own audit entry, with the value before. */
@Injectable()
export class RelabelKey {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly audit: AuditService,
  ) {}

  async execute({ accountId, keyId, actor, name, scopes }: KeyCommand & { name?: string; scopes?: ApiKeyScope[] }): Promise<KeyView> {
    const { key, previousName, previousScopes } = await this.keys.relabel(accountId, keyId, { name, scopes });
    if (key.name !== previousName) {
      await this.audit.record({ accountId, actor, action: 'key.renamed', target: key.id, details: { name: key.name, from: previousName } });
    }
    if (scopes !== undefined && [...key.scopes].sort().join() !== [...previousScopes].sort().join()) {
      await this.audit.record({ accountId, actor, action: 'key.scopes_changed', target: key.id, details: { name: key.name, scopes: key.scopes, from: previousScopes } });
    }
    return toKeyView(key);
  }
}
