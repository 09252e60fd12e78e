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

  /** The webhooks service's one question to the gateway: a key's current signing secret. */
  @MessagePattern(Subjects.authWebhookSecretGet)
  async webhookSecret(@Payload() request: WebhookSecretRequest): Promise<WebhookSecretReply> {
    return { secret: await this.keys.webhookSecret(request.apiKeyId) };
  }
}
