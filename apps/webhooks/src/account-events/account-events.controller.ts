import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { AccountEventsListRequest, AccountLowBalanceEvent, Events, ListWebhookDeliveriesReply, Subjects } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { AccountEventsService } from './account-events.service';

/** Account events' handlers: one line each into AccountEventsService. */
@Controller()
@UseFilters(RpcErrorFilter)
export class AccountEventsController {
  constructor(private readonly accountEvents: AccountEventsService) {}

  @EventPattern(Events.accountLowBalance)
  onLowBalance(@Payload() event: AccountLowBalanceEvent): Promise<void> {
    return this.accountEvents.onLowBalance(event);
  }

  @MessagePattern(Subjects.webhooksAccountEventsList)
  list(@Payload() request: AccountEventsListRequest): Promise<ListWebhookDeliveriesReply> {
    return this.accountEvents.list(request.accountId, request.limit);
  }
}
