import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import type { ListTestWebhooksReply, SendTestWebhookReply } from '@gen/contracts';
import { NotFoundError } from '@gen/errors';
import { SendTestWebhookDto } from './webhook-test.dto';
import { WebhookTestsService } from './webhook-tests.service';
import { ApiKeysService } from '../auth/api-keys.service';
import { NoStoreInterceptor } from '../dashboard/no-store.interceptor';
import { RequiresRole } from '../dashboard/sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../dashboard/sessions/session.guard';
import type { LiveSession } from '../dashboard/sessions/users.repository';

const keyId = () => new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError('No such key.') });
/** Test events shown per key. */
const SHOWN = 5;

/** Settings, API keys: "Send a test event" for a key, and the key's latest test events with their attempts. */
@Controller('dashboard/api/keys')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardTestEventsController {
  constructor(
    private readonly tests: WebhookTestsService,
    private readonly keys: ApiKeysService,
  ) {}

  @Post(':id/test-events')
  @RequiresRole('developer')
  @HttpCode(202)
  async send(@CurrentSession() session: LiveSession, @Param('id', keyId()) id: string, @Body() body: SendTestWebhookDto): Promise<SendTestWebhookReply> {
    await this.activeKey(session.accountId, id);
    return this.tests.send(session.accountId, id, body.url);
  }

  @Get(':id/test-events')
  @RequiresRole('viewer')
  async list(@CurrentSession() session: LiveSession, @Param('id', keyId()) id: string): Promise<ListTestWebhooksReply> {
    await this.keys.get(session.accountId, id); // 404 unless it is one of the account's keys
    return this.tests.list(session.accountId, id, SHOWN);
  }

  private async activeKey(accountId: string, id: string): Promise<void> {
    const key = await this.keys.get(accountId, id);
    if (key.revokedAt !== null) throw new NotFoundError('No such active key.');
  }
}
