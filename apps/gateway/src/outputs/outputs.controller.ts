import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { OutputStatusReply, OutputStatusRequest, Subjects } from '@gen/contracts';
import { GoneError, NotFoundError } from '@gen/errors';
import { isObjectKey, LocalDirectoryStorage, OutputStorage } from '@gen/storage';
import { RpcClient } from '@gen/transport';
import type { FastifyReply } from 'fastify';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway.tokens';

/** The content host ({cdn_url}) in standalone mode: stored outputs, immutable, long-cached. */
@ApiExcludeController()
@Controller('cdn')
export class OutputsController {
  private readonly storage: OutputStorage | null;

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    private readonly rpc: RpcClient,
  ) {
    this.storage = settings.outputsDir ? new LocalDirectoryStorage(settings.outputsDir) : null;
  }

  @Get(':shard/:file')
  async serve(@Param('shard') shard: string, @Param('file') file: string, @Res() reply: FastifyReply): Promise<void> {
    const key = `${shard}/${file}`;
    if (!this.storage || !isObjectKey(key)) throw new NotFoundError('No such output.');
    const object = await this.storage.find(key);
    if (!object) {
      const { status } = await this.rpc.request<OutputStatusReply, OutputStatusRequest>(Subjects.generationOutputStatus, { outputKey: key });
      if (status === 'expired') {
        throw new GoneError('This output was deleted at the end of its retention period; generate it again if you need it.');
      }
      throw new NotFoundError('No such output.');
    }
    await reply
      .header('Content-Type', object.contentType)
      .header('Content-Length', String(object.size))
      // Immutable while it exists, but deleted at the end of its retention: caches keep it an hour at most.
      .header('Cache-Control', 'public, max-age=3600, immutable')
      .header('X-Content-Type-Options', 'nosniff')
      .send(object.open());
  }
}
