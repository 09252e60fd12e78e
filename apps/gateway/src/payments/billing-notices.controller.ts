import { Controller, UseFilters } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { AccountBillingNoticeEvent, Events } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { BillingNotices } from './billing-notices.service';

/** `account.billing_notice` on the gateway: one line into BillingNotices. */
@Controller()
@UseFilters(RpcErrorFilter)
export class BillingNoticesController {
  constructor(private readonly notices: BillingNotices) {}

  @EventPattern(Events.accountBillingNotice)
  onNotice(@Payload() event: AccountBillingNoticeEvent): Promise<void> {
    return this.notices.onNotice(event);
  }
}
