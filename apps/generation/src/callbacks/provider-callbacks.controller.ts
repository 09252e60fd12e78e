import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { parseProviderCallbackRequest, ProviderCallbackReply, Subjects } from '@gen/contracts';
import { RpcErrorFilter } from '@gen/errors';
import { CallbackReceiver } from './callback-receiver.service';

/** `generation.provider-callback`: a provider's callback, forwarded by a gateway. */
@Controller()
@UseFilters(RpcErrorFilter)
export class ProviderCallbacksController {
  constructor(private readonly callbacks: CallbackReceiver) {}

  @MessagePattern(Subjects.generationProviderCallback)
  receive(@Payload() payload: unknown): Promise<ProviderCallbackReply> {
    // The payload crossed a transport: checked before anything reads it.
    const request = parseProviderCallbackRequest(payload);
    if (!request) return Promise.resolve({ outcome: 'refused', verified: false, reason: 'malformed', message: 'The callback could not be read.' });
    return this.callbacks.receive(request);
  }
}
