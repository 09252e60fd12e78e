import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { GetLowBalanceRequest, LowBalanceView, SetLowBalanceRequest, Subjects } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { LowBalanceService } from './low-balance.service';

/** The low-balance threshold: one line each into LowBalanceService. */
@Controller()
@UseFilters(RpcErrorFilter)
export class LowBalanceController {
  constructor(private readonly lowBalance: LowBalanceService) {}

  @MessagePattern(Subjects.billingLowBalanceGet)
  get(@Payload() request: GetLowBalanceRequest): Promise<LowBalanceView> {
    return this.lowBalance.get(request);
  }

  @MessagePattern(Subjects.billingLowBalanceSet)
  set(@Payload() request: SetLowBalanceRequest): Promise<LowBalanceView> {
    return this.lowBalance.set(request);
  }
}
