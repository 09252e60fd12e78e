import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  Events,
  GenerationFinishedEvent,
  ListWebhookDeliveriesReply,
  ListWebhookDeliveriesRequest,
  RedeliverWebhookReply,
  RedeliverWebhookRequest,
  Subjects,
} from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { DeliveriesService } from './deliveries.service';

/** The webhooks service's message handlers: one line each into DeliveriesService. */
// Every handler's failure crosses the transport as the envelope (in-process and NATS alike).
@Controller()
@UseFilters(RpcErrorFilter)
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @EventPattern(Events.generationCompleted)
  onCompleted(@Payload() event: GenerationFinishedEvent): Promise<void> {
    return this.deliveries.onFinished(event);
  }

  @EventPattern(Events.generationFailed)
  onFailed(@Payload() event: GenerationFinishedEvent): Promise<void> {
    return this.deliveries.onFinished(event);
  }

  @MessagePattern(Subjects.webhooksDeliveriesList)
  list(@Payload() request: ListWebhookDeliveriesRequest): Promise<ListWebhookDeliveriesReply> {
    return this.deliveries.list(request.accountId, request.jobId);
  }

  @MessagePattern(Subjects.webhooksRedeliver)
  redeliver(@Payload() request: RedeliverWebhookRequest): Promise<RedeliverWebhookReply> {
    return this.deliveries.redeliver(request.accountId, request.jobId);
  }
}
