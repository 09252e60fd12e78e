import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { LedgerReply, LedgerRequest, Subjects, UsageReply, UsageRequest } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { LedgerService } from './ledger.service';

/** The ledger's message handlers: one line each into LedgerService. */
@Controller()
@UseFilters(RpcErrorFilter)
export class LedgerController {
  constructor(private readonly ledger: LedgerService) {}

  @MessagePattern(Subjects.billingLedger)
  page(@Payload() request: LedgerRequest): Promise<LedgerReply> {
    return this.ledger.page(request);
  }

  @MessagePattern(Subjects.billingUsage)
  usage(@Payload() request: UsageRequest): Promise<UsageReply> {
    return this.ledger.usage(request);
  }
}
