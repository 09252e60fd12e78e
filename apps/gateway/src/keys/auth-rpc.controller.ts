import { Controller, UseFilters } from '@nestjs/common';
import { RpcErrorFilter } from '@gen/errors';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AccountWebhooksReply, AccountWebhooksRequest, Subjects, WebhookSecretReply, WebhookSecretRequest } from '@gen/contracts';
import { LowBalanceRepository } from '../low-balance/low-balance.repository';
import { ApiKeysService } from '../auth/api-keys.service';

/** What other services ask the gateway about keys. */
// Every handler's failure crosses the transport as the envelope (in-process and NATS alike).
@Controller()
@UseFilters(RpcErrorFilter)
export class AuthRpcController {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly lowBalance: LowBalanceRepository,
  ) {}

  /** The webhooks service's one question to the gateway: how a key signs now (secret, scheme, a rotation's previous secret). */
  @MessagePattern(Subjects.authWebhookSecretGet)
  webhookSecret(@Payload() request: WebhookSecretRequest): Promise<WebhookSecretReply> {
    return this.keys.webhookSigning(request.apiKeyId);
  }

  /** Where an account's events (account.low_balance) go: its live keys' distinct default webhook URLs. */
  @MessagePattern(Subjects.authAccountWebhooksGet)
  async accountWebhooks(@Payload() request: AccountWebhooksRequest): Promise<AccountWebhooksReply> {
    return { data: await this.lowBalance.accountWebhooks(request.accountId) };
  }
}
