import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Put, UseGuards, UseInterceptors } from '@nestjs/common';
import type { CreatedKeyReply, KeyCapView, KeyChangeReply, KeyView, KeyWithCapsView } from '@gen/contracts';
import { NotFoundError } from '@gen/errors';
import type { AuditActor } from '../audit-log/audit-actions';
import { CurrentActor } from '../sessions/audit-actor.decorator';
import { VerifiedEmailGuard } from '../sessions/verified-email.guard';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import type { LiveSession } from '../sessions/users.repository';
import { CreateKey } from './create-key.service';
import { ListKeys } from './list-keys.service';
import { RelabelKey } from './relabel-key.service';
import { RenewWebhookSecret } from './renew-webhook-secret.service';
import { RevokeKey } from './revoke-key.service';
import type { KeyCapDefaults } from './key-defaults.repository';
import { SetKeyCaps } from './set-key-caps.service';
import { SetKeyDefaults } from './set-key-defaults.service';
import { SetKeyWebhookUrl } from './set-key-webhook-url.service';
import { SetWebhookScheme } from './set-webhook-scheme.service';
import { CreateKeyDto, KeyCapsDto, renewSecretOverlap, UpdateKeyDto, WebhookSchemeDto, KeyLabelDto } from './key.dto';

const keyId = () => new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError('No such key.') });

/** Settings, then API Keys. */
@Controller('dashboard/api/keys')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardKeysController {
  constructor(
    private readonly listKeys: ListKeys,
    private readonly createKey: CreateKey,
    private readonly setWebhookUrl: SetKeyWebhookUrl,
    private readonly renewWebhookSecret: RenewWebhookSecret,
    private readonly setWebhookScheme: SetWebhookScheme,
    private readonly relabelKey: RelabelKey,
    private readonly setKeyCaps: SetKeyCaps,
    private readonly revokeKey: RevokeKey,
    private readonly keyDefaults: SetKeyDefaults,
  ) {}

  @Get()
  @RequiresRole('viewer')
  async list(@CurrentSession() session: LiveSession): Promise<{ data: KeyWithCapsView[] }> {
    return { data: await this.listKeys.execute({ accountId: session.accountId }) };
  }

  @Post()
  @RequiresRole('developer')
  @HttpCode(201)
  @UseGuards(VerifiedEmailGuard)
  create(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Body() body: CreateKeyDto): Promise<CreatedKeyReply> {
    return this.createKey.execute({ ...body, accountId: session.accountId, actor, role: session.role });
  }

  /** The caps every new key of the account gets (docs/guide/limits.md, "Spending caps"). */
  @Get('defaults')
  @RequiresRole('viewer')
  defaults(@CurrentSession() session: LiveSession): Promise<KeyCapDefaults> {
    return this.keyDefaults.get(session.accountId);
  }

  @Put('defaults')
  @RequiresRole('admin')
  setDefaults(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Body() body: KeyCapsDto): Promise<KeyCapDefaults> {
    return this.keyDefaults.execute({ accountId: session.accountId, actor, per_day: body.per_day, per_month: body.per_month });
  }

  @Patch(':id')
  @RequiresRole('admin')
  update(
    @CurrentSession() session: LiveSession,
    @CurrentActor() actor: AuditActor,
    @Param('id', keyId()) id: string,
    @Body() body: UpdateKeyDto,
  ): Promise<KeyChangeReply> {
    return this.setWebhookUrl.execute({ accountId: session.accountId, keyId: id, actor, url: body.webhook_url });
  }

  @Post(':id/webhook-secret')
  @RequiresRole('admin')
  @HttpCode(200)
  renewSecret(
    @CurrentSession() session: LiveSession,
    @CurrentActor() actor: AuditActor,
    @Param('id', keyId()) id: string,
    @Body() body: unknown,
  ): Promise<KeyChangeReply> {
    // No body renews at once; {"overlap_seconds": n} rotates a standard key with an overlap.
    return this.renewWebhookSecret.execute({ accountId: session.accountId, keyId: id, actor, overlapSeconds: renewSecretOverlap(body) });
  }

  /** Renames the key and/or changes its scopes (scopes apply from the key's next request). */
  @Put(':id/label')
  @RequiresRole('admin')
  relabel(
    @CurrentSession() session: LiveSession,
    @CurrentActor() actor: AuditActor,
    @Param('id', keyId()) id: string,
    @Body() body: KeyLabelDto,
  ): Promise<KeyView> {
    return this.relabelKey.execute({ accountId: session.accountId, keyId: id, actor, name: body.name, scopes: body.scopes });
  }

  /** `service` (the spec's X-Service-* headers) or `standard` (Standard Webhooks). */
  @Put(':id/webhook-scheme')
  @RequiresRole('admin')
  setScheme(
    @CurrentSession() session: LiveSession,
    @CurrentActor() actor: AuditActor,
    @Param('id', keyId()) id: string,
    @Body() body: WebhookSchemeDto,
  ): Promise<KeyView> {
    return this.setWebhookScheme.execute({ accountId: session.accountId, keyId: id, actor, scheme: body.scheme });
  }

  /** The key's spending caps per UTC day and month (docs/guide/limits.md, "Spending caps"). */
  @Put(':id/caps')
  @RequiresRole('admin')
  setCaps(
    @CurrentSession() session: LiveSession,
    @CurrentActor() actor: AuditActor,
    @Param('id', keyId()) id: string,
    @Body() body: KeyCapsDto,
  ): Promise<KeyCapView> {
    return this.setKeyCaps.execute({ accountId: session.accountId, keyId: id, actor, per_day: body.per_day, per_month: body.per_month });
  }

  @Delete(':id')
  @RequiresRole('developer')
  @HttpCode(204)
  revoke(@CurrentSession() session: LiveSession, @CurrentActor() actor: AuditActor, @Param('id', keyId()) id: string): Promise<void> {
    return this.revokeKey.execute({ accountId: session.accountId, keyId: id, actor });
  }
}
