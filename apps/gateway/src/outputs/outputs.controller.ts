import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { OutputStatusReply, OutputStatusRequest, Subjects } from '@gen/contracts';
import { GoneError, NotFoundError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import type { FastifyReply } from 'fastify';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway.tokens';

/** Every format an engine may store (built-in ones, and what provider adapters accept: apps/generation/src/providers/shared/output-format.ts). */
const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  webp: 'image/webp',
  mp4: 'video/mp4',
  webm: 'video/webm',
  wav: 'audio/wav',
  mp3: 'audio/mpeg',
  glb: 'model/gltf-binary',
};
/** Keys are `<2 hex>/<32 hex>.<ext>`: anything else is refused before touching the disk. */
const KEY_PATTERN = /^[0-9a-f]{2}\/[0-9a-f]{32}\.(png|jpg|webp|mp4|webm|wav|mp3|glb)$/;

/** The content host ({cdn_url}) in standalone mode: stored outputs, immutable, long-cached. */
@ApiExcludeController()
@Controller('cdn')
export class OutputsController {
  constructor(
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly rpc: RpcClient,
  ) {}

  @Get(':shard/:file')
  async serve(@Param('shard') shard: string, @Param('file') file: string, @Res() reply: FastifyReply): Promise<void> {
    const key = `${shard}/${file}`;
    const root = this.settings.outputsDir;
    if (!root || !KEY_PATTERN.test(key)) throw new NotFoundError('No such output.');
    const path = join(resolve(root), key);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) {
      const { status } = await this.rpc.request<OutputStatusReply, OutputStatusRequest>(Subjects.generationOutputStatus, { outputKey: key });
      if (status === 'expired') {
        throw new GoneError('This output was deleted at the end of its retention period; generate it again if you need it.');
      }
      throw new NotFoundError('No such output.');
    }
    const extension = key.slice(key.lastIndexOf('.') + 1);
    await reply
      .header('Content-Type', CONTENT_TYPES[extension])
      .header('Content-Length', String(info.size))
      // Immutable while it exists, but deleted at the end of its retention: caches keep it an hour at most.
      .header('Cache-Control', 'public, max-age=3600, immutable')
      .header('X-Content-Type-Options', 'nosniff')
      .send(createReadStream(path));
  }
}
