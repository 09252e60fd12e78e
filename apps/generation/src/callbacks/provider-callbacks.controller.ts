import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ProviderCallbackReply, ProviderCallbackRequest, Subjects } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { CallbackReceiver } from './callback-receiver.service';

/** `generation.provider-callback`: a provider's callback, forwarded by a gateway. */
@Controller()
@UseFilters(RpcErrorFilter)
export class ProviderCallbacksController {
  constructor(private readonly callbacks: CallbackReceiver) {}

  @MessagePattern(Subjects.generationProviderCallback)
  receive(@Payload() request: ProviderCallbackRequest): Promise<ProviderCallbackReply> {
    // The transport checked the payload against ProviderCallbackRequest before this runs.
    return this.callbacks.receive(request);
  }
}
