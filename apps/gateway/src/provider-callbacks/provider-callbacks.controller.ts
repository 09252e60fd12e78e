import { Controller, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ProviderCallbacksRelay } from './provider-callbacks.relay';

/** Where providers call back; its routes take the provider callback body limit (configureHttpApp). */
export const PROVIDER_CALLBACKS_PREFIX = '/provider-callbacks/';

/**
 * `POST /provider-callbacks/{provider}/{token}`: Replicate, fal and Cog telling us an upstream job
 * ended (docs/operations/providers.md, "Callbacks"). No API key: the token in the URL (bound to one job by a MAC)
 * and the provider's own signature are the proof, both checked by the generation service. Left out
 * of the OpenAPI document on purpose: it is the providers' interface, in their formats, not one our
 * API clients call.
 */
@ApiExcludeController()
@Controller('provider-callbacks')
export class ProviderCallbacksController {
  constructor(private readonly relay: ProviderCallbacksRelay) {}

  @Post(':provider/:token')
  @HttpCode(200)
  receive(
    @Param('provider') provider: string,
    @Param('token') token: string,
    @Req() request: FastifyRequest & { rawBody?: Buffer },
  ): Promise<{ status: 'accepted' }> {
    return this.relay.forward(request.raw, provider, token, request.headers, request.rawBody ?? Buffer.alloc(0));
  }
}
