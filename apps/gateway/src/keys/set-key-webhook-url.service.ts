import { Injectable } from '@nestjs/common';
import type { KeyChangeReply } from '@gen/contracts';
import { AuditService } from '../audit-log/audit.service';
import { KeyWebhooksService } from '../auth/key-webhooks.service';
import type { KeyCommand } from './key-command';
import { toKeyView } from './key-view';

/** Sets or removes a key's default webhook URL; generates the signing secret if the key has none. */
@Injectable()
export class SetKeyWebhookUrl {
  constructor(
    private readonly webhooks: KeyWebhooksService,
    private readonly audit: AuditService,
  ) {}

  async execute({ accountId, keyId, actor, url }: KeyCommand & { url: string | null }): Promise<KeyChangeReply> {
    const { key, webhookSecret } = await this.webhooks.setUrl(accountId, keyId, url);
    await this.audit.record({ accountId, actor, action: 'key.webhook_url_set', target: key.id, details: { name: key.name, webhook_url: key.webhookUrl } });
    if (webhookSecret) await this.audit.record({ accountId, actor, action: 'key.secret_generated', target: key.id, details: { name: key.name } });
    return { key: toKeyView(key), webhook_secret: webhookSecret };
  }
}
