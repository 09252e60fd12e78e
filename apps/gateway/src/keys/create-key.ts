import { Injectable } from '@nestjs/common';
import type { CreatedKeyReply } from '@gen/contracts';
import { ValidationError } from '@gen/errors';
import { newWebhookSecret } from '@gen/webhook-signature';
import type { AuditActor } from '../audit/audit-actions';
import { AuditService } from '../audit/audit.service';
import { API_KEY_SCOPES, ApiKeyScope } from '../auth/api-key.entity';
import { ApiKeysService } from '../auth/api-keys.service';
import { KeyWebhooksService } from '../auth/key-webhooks.service';
import { toKeyView } from './key-view';

export interface CreateKeyCommand {
  accountId: string;
  actor: AuditActor;
  name: string;
  /** Every scope when absent. */
  scopes?: ApiKeyScope[];
  webhook_url?: string | null;
}

/** A new key, shown once; with a default webhook URL it gets a signing secret too (every delivery is signed). */
@Injectable()
export class CreateKey {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly webhooks: KeyWebhooksService,
    private readonly audit: AuditService,
  ) {}

  async execute({ accountId, actor, ...input }: CreateKeyCommand): Promise<CreatedKeyReply> {
    const name = input.name.trim();
    if (name.length === 0) throw new ValidationError('name: Enter a name for the key.');
    if (name.length > 100) throw new ValidationError('name: Use at most 100 characters.');
    const webhookUrl = this.webhooks.checkUrl(input.webhook_url);
    const secret = webhookUrl ? newWebhookSecret() : null;
    const created = await this.keys.create(accountId, name, input.scopes ?? [...API_KEY_SCOPES], webhookUrl, secret);
    const key = await this.keys.get(accountId, created.id);
    await this.audit.record({
      accountId,
      actor,
      action: 'key.created',
      target: key.id,
      details: { name: key.name, scopes: key.scopes, webhook_url: key.webhookUrl, secret_generated: secret !== null },
    });
    return { key: toKeyView(key), api_key: created.key, webhook_secret: secret };
  }
}
