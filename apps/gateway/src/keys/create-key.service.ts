import { Injectable, Logger } from '@nestjs/common';
import { CreatedKeyReply, KeyCapView, SetKeyCapsRequest, Subjects } from '@gen/contracts';
import { ForbiddenError, ValidationError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import { newWebhookSecret } from '@gen/webhook-signature';
import type { AuditActor } from '../audit-log/audit-actions';
import { AuditService } from '../audit-log/audit.service';
import { API_KEY_SCOPES, ApiKeyScope } from '../auth/api-key.entity';
import { ApiKeysService } from '../auth/api-keys.service';
import { KeyWebhooksService } from '../auth/key-webhooks.service';
import { MemberRole, roleAtLeast } from '../memberships/member-role';
import { KeyDefaultsRepository } from './key-defaults.repository';
import { toKeyView } from './key-view';

export interface CreateKeyCommand {
  accountId: string;
  actor: AuditActor;
  /** The creator's role on the account: scopes and a webhook URL at creation need an admin. */
  role: MemberRole;
  name: string;
  /** Every scope when absent. */
  scopes?: ApiKeyScope[];
  webhook_url?: string | null;
}

/**
 * A new key, shown once; with a default webhook URL it gets a signing secret too (every delivery is
 * signed). What an admin must do to an existing key (scopes, webhook URL and secret, caps) a
 * developer cannot get by making a new one instead (docs/guide/dashboard.md, "Members and roles"):
 * only admins and owners give scopes or a webhook URL here, and every new key gets the account's
 * default caps.
 */
@Injectable()
export class CreateKey {
  private readonly logger = new Logger(CreateKey.name);

  constructor(
    private readonly keys: ApiKeysService,
    private readonly webhooks: KeyWebhooksService,
    private readonly defaults: KeyDefaultsRepository,
    private readonly rpc: RpcClient,
    private readonly audit: AuditService,
  ) {}

  async execute({ accountId, actor, role, ...input }: CreateKeyCommand): Promise<CreatedKeyReply> {
    const name = input.name.trim();
    if (name.length === 0) throw new ValidationError('name: Enter a name for the key.');
    if (name.length > 100) throw new ValidationError('name: Use at most 100 characters.');
    const givesWebhook = input.webhook_url !== undefined && input.webhook_url !== null && input.webhook_url.trim() !== '';
    if (!roleAtLeast(role, 'admin') && (input.scopes !== undefined || givesWebhook)) {
      throw new ForbiddenError(
        `Your role on this account is ${role}: your new key has every scope, no webhook URL and the account's default caps. ` +
          'Scopes and a webhook URL (with its signing secret) are set by an admin or owner.',
      );
    }
    const webhookUrl = this.webhooks.checkUrl(input.webhook_url);
    const secret = webhookUrl ? newWebhookSecret() : null;
    const caps = await this.defaults.get(accountId);
    const createdBy = actor.kind === 'user' ? actor.userId : null;
    const created = await this.keys.create(accountId, name, input.scopes ?? [...API_KEY_SCOPES], webhookUrl, secret, createdBy);
    const capped = await this.applyDefaultCaps(accountId, created.id, caps);
    const key = await this.keys.get(accountId, created.id);
    await this.audit.record({
      accountId,
      actor,
      action: 'key.created',
      target: key.id,
      details: { name: key.name, scopes: key.scopes, webhook_url: key.webhookUrl, secret_generated: secret !== null, per_day: capped.per_day, per_month: capped.per_month },
    });
    return { key: toKeyView(key), api_key: created.key, webhook_secret: secret };
  }

  /** The account's default caps on the new key; a key that could not get them is revoked, never left uncapped. */
  private async applyDefaultCaps(accountId: string, keyId: string, caps: { per_day: number | null; per_month: number | null }) {
    if (caps.per_day === null && caps.per_month === null) return caps;
    try {
      const view = await this.rpc.request<KeyCapView, SetKeyCapsRequest>(Subjects.billingKeyCapsSet, { accountId, keyId, perDay: caps.per_day, perMonth: caps.per_month });
      return { per_day: view.per_day, per_month: view.per_month };
    } catch (error) {
      await this.keys.revoke(accountId, keyId).catch((revokeError: unknown) => this.logger.error({ err: revokeError, keyId }, 'uncapped new key not revoked'));
      throw error;
    }
  }
}
