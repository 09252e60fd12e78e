import { Body, Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { SendTestWebhookReply } from '@gen/contracts';
import { ApiKeyGuard, RequireScope } from '../../auth/api-key.guard';
import type { Principal } from '../../auth/api-keys.service';
import { CurrentPrincipal } from '../../auth/principal.decorator';
import { ApiAuthenticated, ApiErrors, successHeaders } from '../docs/api-docs.decorators';
import { WebhookDeliveryDto } from '../docs/api-schemas.dto';
import { SendTestWebhookDto } from './webhook-test.dto';
import { WebhookTestsService } from './webhook-tests.service';

@ApiTags('webhooks')
@ApiAuthenticated()
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class WebhookTestsController {
  constructor(private readonly tests: WebhookTestsService) {}

  @Post('webhooks/test')
  @ApiOperation({
    summary: 'Send a test event',
    description:
      "Sends a signed `generation.completed`-shaped event marked as a test (`X-Service-Test: true`, an `id` starting with `test_`, " +
      "0 credits) to `url`, or to the key's default webhook URL, with the usual three attempts. Signed with the key's current " +
      'secret. 422 when the key has no signing secret or there is no URL; 409 while an earlier test of the key is still being delivered.',
  })
  @ApiAcceptedResponse({ type: WebhookDeliveryDto, headers: successHeaders() })
  @ApiErrors(403, 409, 422)
  @HttpCode(202)
  @RequireScope('generate')
  send(@CurrentPrincipal() principal: Principal, @Body() body: SendTestWebhookDto): Promise<SendTestWebhookReply> {
    return this.tests.send(principal.accountId, principal.apiKeyId, body.url);
  }
}
