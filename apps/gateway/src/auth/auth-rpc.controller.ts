import { Controller, UseFilters } from '@nestjs/common';
import { RpcErrorFilter } from '@gen/errors';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Subjects, WebhookSecretReply, WebhookSecretRequest } from '@gen/contracts';
import { ApiKeysService } from './api-keys.service';

/** What other services ask the gateway about keys. */
// Every handler's failure crosses the transport as the envelope (in-process and NATS alike).
@Controller()
@UseFilters(RpcErrorFilter)
export class AuthRpcController {
  constructor(private readonly keys: ApiKeysService) {}

  /** The webhooks service's one question to the gateway: how a key signs now (secret, scheme, a rotation's previous secret). */
  @MessagePattern(Subjects.authWebhookSecretGet)
  webhookSecret(@Payload() request: WebhookSecretRequest): Promise<WebhookSecretReply> {
    return this.keys.webhookSigning(request.apiKeyId);
  }
}
