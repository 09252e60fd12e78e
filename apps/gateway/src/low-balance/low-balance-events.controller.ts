import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { AccountLowBalanceEvent, Events } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { LowBalanceMailer } from './low-balance-mailer.service';

/** `account.low_balance` on the gateway: the mail to the account's owners. */
@Controller()
@UseFilters(RpcErrorFilter)
export class LowBalanceEventsController {
  constructor(private readonly mailer: LowBalanceMailer) {}

  @EventPattern(Events.accountLowBalance)
  onLowBalance(@Payload() event: AccountLowBalanceEvent): Promise<void> {
    return this.mailer.onLowBalance(event);
  }
}
