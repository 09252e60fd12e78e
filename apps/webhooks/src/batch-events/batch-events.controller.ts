import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { BatchFinishedEvent, Events } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { BatchEventsService } from './batch-events.service';

/** Batch events' handler: one line into BatchEventsService. */
@Controller()
@UseFilters(RpcErrorFilter)
export class BatchEventsController {
  constructor(private readonly batchEvents: BatchEventsService) {}

  @EventPattern(Events.batchCompleted)
  onBatchCompleted(@Payload() event: BatchFinishedEvent): Promise<void> {
    return this.batchEvents.onBatchFinished(event);
  }
}
