import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { SendTestWebhookReply } from '@gen/contracts';
import { ApiKeyGuard, RequireScope } from '../auth/api-key.guard';
import type { Principal } from '../auth/api-keys.service';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { ApiAuthenticated, ApiErrors, missingScopeExample, successHeaders } from '../docs/api-docs.decorators';
import { WebhookDeliveryDto } from '../docs/webhook-delivery.dto';
import { SendTestWebhookDto } from './webhook-test.dto';
import { SendTestWebhook } from './send-test-webhook.service';

@ApiTags('webhooks')
@ApiAuthenticated()
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class WebhookTestsController {
  constructor(private readonly sendTest: SendTestWebhook) {}

  @Post('webhooks/test')
  @ApiOperation({
    operationId: 'sendTestWebhook',
    summary: 'Send a test event',
    description:
      "Sends a signed `generation.completed`-shaped event marked as a test (`X-Service-Test: true`, an `id` starting with `test_`, " +
      "0 credits) to `url`, or to the key's default webhook URL, with the usual three attempts. Signed with the key's current " +
      'secret. 422 when the key has no signing secret or there is no URL; 409 while an earlier test of the key is still being delivered.',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto, headers: successHeaders() })
  @ApiErrors(
    { status: 403, examples: missingScopeExample('generate') },
    {
      status: 409,
      examples: {
        in_progress: {
          summary: 'An earlier test of the key is still being delivered',
          message: 'A test event of this key is still being delivered (wh_4fQ9mZ2xLr7TbN1cVw8KpD3s); wait until it has finished.',
        },
      },
    },
    {
      status: 422,
      examples: {
        no_secret: {
          summary: 'The key has no signing secret',
          message:
            'This API key has no webhook signing secret, so a test event could not be signed. Generate one in the dashboard (Settings, API Keys) and retry.',
        },
        no_url: {
          summary: 'No url, and the key has no default webhook URL',
          message: 'url: this API key has no default webhook URL; send "url", or set one in the dashboard (Settings, API Keys).',
        },
      },
    },
  )
  @HttpCode(202)
  @RequireScope('generate')
  send(@CurrentPrincipal() principal: Principal, @Body() body: SendTestWebhookDto): Promise<SendTestWebhookReply> {
    return this.sendTest.execute({ accountId: principal.accountId, apiKeyId: principal.apiKeyId, url: body.url });
  }
}
