import { Controller, UseFilters } from '@nestjs/common';
import { RpcErrorFilter } from '@gen/errors';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  BalanceReply,
  BalanceRequest,
  Events,
  GenerationFinishedEvent,
  OpenBillingAccountRequest,
  ReleaseCreditsRequest,
  ReserveCreditsReply,
  ReserveCreditsRequest,
  Subjects,
} from '@gen/contracts';
import { BillingService } from './billing.service';

/** The billing service's message handlers: one line each into BillingService. */
// Every handler's failure crosses the transport as the envelope (in-process and NATS alike).
@Controller()
@UseFilters(RpcErrorFilter)
export class BillingController {
  constructor(private readonly billing: BillingService) {}

  @MessagePattern(Subjects.billingReserve)
  reserve(@Payload() request: ReserveCreditsRequest): Promise<ReserveCreditsReply> {
    return this.billing.reserve(request);
  }

  @MessagePattern(Subjects.billingRelease)
  async release(@Payload() request: ReleaseCreditsRequest): Promise<{ ok: true }> {
    await this.billing.release(request);
    return { ok: true };
  }

  @MessagePattern(Subjects.billingBalance)
  balance(@Payload() request: BalanceRequest): Promise<BalanceReply> {
    return this.billing.balance(request.accountId);
  }

  @MessagePattern(Subjects.billingAccountOpen)
  open(@Payload() request: OpenBillingAccountRequest): Promise<BalanceReply> {
    return this.billing.openAccount(request);
  }

  @EventPattern(Events.generationCompleted)
  onCompleted(@Payload() event: GenerationFinishedEvent): Promise<void> {
    return this.billing.onCompleted(event);
  }

  @EventPattern(Events.generationFailed)
  onFailed(@Payload() event: GenerationFinishedEvent): Promise<void> {
    return this.billing.onFailed(event);
  }
}
