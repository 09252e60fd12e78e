import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { KeyCapView, ListKeyCapsReply, ListKeyCapsRequest, SetKeyCapsRequest, Subjects } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { KeyCapsService } from './key-caps.service';

/** Spending caps per API key: one line each into KeyCapsService. */
@Controller()
@UseFilters(RpcErrorFilter)
export class KeyCapsController {
  constructor(private readonly caps: KeyCapsService) {}

  @MessagePattern(Subjects.billingKeyCapsList)
  async list(@Payload() request: ListKeyCapsRequest): Promise<ListKeyCapsReply> {
    return { data: await this.caps.list(request) };
  }

  @MessagePattern(Subjects.billingKeyCapsSet)
  set(@Payload() request: SetKeyCapsRequest): Promise<KeyCapView> {
    return this.caps.set(request);
  }
}
