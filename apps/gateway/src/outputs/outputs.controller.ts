import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { OutputStatusReply, OutputStatusRequest, Subjects } from '@gen/contracts';
import { GoneError, NotFoundError } from '@gen/errors';
import { isObjectKey, LocalDirectoryStorage, OUTPUT_EXTENSIONS, OUTPUT_FORMATS, OutputStorage } from '@gen/storage';
import { RpcClient } from '@gen/transport';
import type { FastifyReply } from 'fastify';
import { ApiUnmeteredErrors, COMMON_HEADERS } from '../api/docs/api-docs.decorators';
import { GATEWAY_SETTINGS, GatewaySettings } from '../gateway.tokens';

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
  private readonly storage: OutputStorage | null;

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    private readonly rpc: RpcClient,
  ) {
    this.storage = settings.outputsDir ? new LocalDirectoryStorage(settings.outputsDir) : null;
  }

  @Get(':shard/:file')
  @ApiOperation({
    operationId: 'getOutput',
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
    schema: { type: 'string', pattern: `^[0-9a-f]{32}\\.(${OUTPUT_EXTENSIONS.join('|')})$` },
  })
  @ApiOkResponse({
    description: 'The file, with Cache-Control: public, max-age=3600, immutable.',
    headers: COMMON_HEADERS,
    content: Object.fromEntries(Object.values(OUTPUT_FORMATS).map((f) => [f.contentType, { schema: { type: 'string', format: 'binary' } }])),
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
    if (!this.storage || !isObjectKey(key)) throw new NotFoundError(NO_SUCH_OUTPUT);
    const object = await this.storage.find(key);
    if (!object) {
      const { status } = await this.rpc.request<OutputStatusReply, OutputStatusRequest>(Subjects.generationOutputStatus, { outputKey: key });
      if (status === 'expired') {
        throw new GoneError(OUTPUT_GONE);
      }
      throw new NotFoundError(NO_SUCH_OUTPUT);
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
