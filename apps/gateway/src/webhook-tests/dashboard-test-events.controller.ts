import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, UseGuards, UseInterceptors } from '@nestjs/common';
import type { ListTestWebhooksReply, SendTestWebhookReply } from '@gen/contracts';
import { NotFoundError } from '@gen/errors';
import { NoStoreInterceptor } from '../http-common/no-store.interceptor';
import { RequiresRole } from '../sessions/requires-role.decorator';
import { CurrentSession, DashboardSessionGuard } from '../sessions/session.guard';
import type { LiveSession } from '../sessions/users.repository';
import { ListTestWebhooks } from './list-test-webhooks.service';
import { SendTestWebhook } from './send-test-webhook.service';
import { SendTestWebhookDto } from './webhook-test.dto';

const keyId = () => new ParseUUIDPipe({ exceptionFactory: () => new NotFoundError('No such key.') });
/** Test events shown per key. */
const SHOWN = 5;

/** Settings, API keys: "Send a test event" for a key, and the key's latest test events with their attempts. */
@Controller('dashboard/api/keys')
@UseGuards(DashboardSessionGuard)
@UseInterceptors(NoStoreInterceptor)
export class DashboardTestEventsController {
  constructor(
    private readonly sendTest: SendTestWebhook,
    private readonly listTests: ListTestWebhooks,
  ) {}

  @Post(':id/test-events')
  @RequiresRole('developer')
  @HttpCode(202)
  send(@CurrentSession() session: LiveSession, @Param('id', keyId()) id: string, @Body() body: SendTestWebhookDto): Promise<SendTestWebhookReply> {
    return this.sendTest.execute({ accountId: session.accountId, apiKeyId: id, url: body.url });
  }

  @Get(':id/test-events')
  @RequiresRole('viewer')
  list(@CurrentSession() session: LiveSession, @Param('id', keyId()) id: string): Promise<ListTestWebhooksReply> {
    return this.listTests.execute({ accountId: session.accountId, apiKeyId: id, limit: SHOWN });
  }
}
