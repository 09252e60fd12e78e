import { Injectable } from '@nestjs/common';
import type { KeyChangeReply } from '@gen/contracts';
import { AuditService } from '../audit-log/audit.service';
import { ApiKeysService } from '../auth/api-keys.service';
import { KeyWebhooksService } from '../auth/key-webhooks.service';
import type { KeyCommand } from './key-command';
import { toKeyView } from './key-view';

/**
 * Generates the key's signing secret, or renews it: signatures with the old one fail from now on;
 * with `overlapSeconds` (a `standard` key), a rotation: both sign for that long first.
 */
@Injectable()
export class RenewWebhookSecret {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly webhooks: KeyWebhooksService,
    private readonly audit: AuditService,
  ) {}

  async execute({ accountId, keyId, actor, overlapSeconds }: KeyCommand & { overlapSeconds?: number }): Promise<KeyChangeReply> {
    // Read first only to tell a first secret from a renewal; the renewal itself says when there is no such key.
    const before = await this.keys.get(accountId, keyId).catch(() => null);
    const { key, webhookSecret } = await this.webhooks.renewSecret(accountId, keyId, overlapSeconds);
    const action = overlapSeconds !== undefined ? 'key.secret_rotated' : before?.webhookSecret ? 'key.secret_renewed' : 'key.secret_generated';
    const details = overlapSeconds !== undefined ? { name: key.name, overlap_seconds: overlapSeconds } : { name: key.name };
    await this.audit.record({ accountId, actor, action, target: key.id, details });
    return { key: toKeyView(key), webhook_secret: webhookSecret };
  }
}
