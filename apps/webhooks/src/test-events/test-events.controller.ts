import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ListTestWebhooksReply, ListTestWebhooksRequest, SendTestWebhookReply, SendTestWebhookRequest, Subjects } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { TestEventsService } from './test-events.service';

/** Test events' message handlers: one line each into TestEventsService. */
@Controller()
@UseFilters(RpcErrorFilter)
export class TestEventsController {
  constructor(private readonly tests: TestEventsService) {}

  @MessagePattern(Subjects.webhooksTestSend)
  send(@Payload() request: SendTestWebhookRequest): Promise<SendTestWebhookReply> {
    return this.tests.send(request);
  }

  @MessagePattern(Subjects.webhooksTestList)
  list(@Payload() request: ListTestWebhooksRequest): Promise<ListTestWebhooksReply> {
    return this.tests.list(request.accountId, request.apiKeyId, request.limit);
  }
}
