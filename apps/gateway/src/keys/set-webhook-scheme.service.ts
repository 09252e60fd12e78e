import { Injectable } from '@nestjs/common';
import type { KeyView } from '@gen/contracts';
import { AuditService } from '../audit-log/audit.service';
import { KeyWebhooksService } from '../auth/key-webhooks.service';
import type { KeyCommand } from './key-command';
import { toKeyView } from './key-view';

/** How the key's webhooks are signed: `service` (the spec's X-Service-* headers) or `standard` (Standard Webhooks). */
@Injectable()
export class SetWebhookScheme {
  constructor(
    private readonly webhooks: KeyWebhooksService,
    private readonly audit: AuditService,
  ) {}

  async execute({ accountId, keyId, actor, scheme }: KeyCommand & { scheme: string }): Promise<KeyView> {
    const key = await this.webhooks.setScheme(accountId, keyId, scheme);
    await this.audit.record({ accountId, actor, action: 'key.webhook_scheme_set', target: key.id, details: { name: key.name, scheme } });
    return toKeyView(key);
  }
}
