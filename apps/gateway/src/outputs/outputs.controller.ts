import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { OutputStatusReply, OutputStatusRequest, Subjects } from '@gen/contracts';
import { GoneError, NotFoundError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import type { FastifyReply } from 'fastify';
import { ApiUnmeteredErrors, COMMON_HEADERS } from '../api/docs/api-docs.decorators';
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

const NO_SUCH_OUTPUT = 'No such output.';
const OUTPUT_GONE = 'This output was deleted at the end of its retention period; generate it again if you need it.';

/**
 * The content host ({cdn_url}): stored outputs, immutable, long-cached. Served by the gateway when it
 * holds the outputs (standalone; distributed with STORAGE_DIR), under CDN_BASE_URL (default
 * PUBLIC_BASE_URL/cdn); a deployment may put a CDN in front.
 */
@ApiTags('outputs')
@Controller('cdn')
export class OutputsController {
  constructor(
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly rpc: RpcClient,
  ) {}

  @Get(':shard/:file')
  @ApiOperation({
    summary: 'Download an output',
    description:
      "A generation's output, at the `output_url` of its record (no API key: the URL is unguessable). Kept for " +
      'OUTPUT_RETENTION_HOURS after completion (`output_expires_at`), then deleted: 410.',
  })
  @ApiParam({ name: 'shard', description: 'Two hex digits.', example: '9b', schema: { type: 'string', pattern: '^[0-9a-f]{2}$' } })
  @ApiParam({
    name: 'file',
    description: '32 hex digits and the extension of the format.',
    example: '9b1f0c6de2a84f7c8e3a5d2b1c0f4e6a.png',
    schema: { type: 'string', pattern: '^[0-9a-f]{32}\\.(png|jpg|webp|mp4|webm|wav|mp3|glb)$' },
  })
  @ApiOkResponse({
    description: 'The file, with Cache-Control: public, max-age=3600, immutable.',
    headers: COMMON_HEADERS,
    content: Object.fromEntries([...new Set(Object.values(CONTENT_TYPES))].map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
  })
  @ApiUnmeteredErrors(
    {
      status: 404,
      description: 'not_found: no output has this path',
      examples: { unknown: { summary: 'No output has this path', message: NO_SUCH_OUTPUT } },
    },
    {
      status: 410,
      examples: {
        expired: {
          summary: 'Deleted at the end of its retention period',
          message: OUTPUT_GONE,
        },
      },
    },
  )
  async output(@Param('shard') shard: string, @Param('file') file: string, @Res() reply: FastifyReply): Promise<void> {
    const key = `${shard}/${file}`;
    const root = this.settings.outputsDir;
    if (!root || !KEY_PATTERN.test(key)) throw new NotFoundError(NO_SUCH_OUTPUT);
    const path = join(resolve(root), key);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) {
      const { status } = await this.rpc.request<OutputStatusReply, OutputStatusRequest>(Subjects.generationOutputStatus, { outputKey: key });
      if (status === 'expired') {
        throw new GoneError(OUTPUT_GONE);
      }
      throw new NotFoundError(NO_SUCH_OUTPUT);
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
