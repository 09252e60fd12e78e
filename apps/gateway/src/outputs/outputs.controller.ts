import { Controller, Get, Headers, Inject, Optional, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { OutputStatusReply, OutputStatusRequest, Subjects } from '@gen/contracts';
import { GoneError, NotFoundError } from '@gen/errors';
import { isObjectKey, OUTPUT_CACHE_CONTROL, OUTPUT_EXTENSIONS, OUTPUT_FORMATS, OutputStorage } from '@gen/storage';
import { RpcClient } from '@gen/transport';
import type { FastifyReply } from 'fastify';
import { ApiUnmeteredErrors, COMMON_HEADERS } from '../docs/api-docs.decorators';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { parseByteRange } from './byte-range';

const NO_SUCH_OUTPUT = 'No such output.';
const OUTPUT_GONE = 'This output was deleted at the end of its retention period; generate it again if you need it.';

/**
 * The content host ({cdn_url}): stored outputs, immutable, long-cached. Served by the gateway from the
 * storage (the local folder, or the S3 bucket: any gateway serves any output), under CDN_BASE_URL
 * (default PUBLIC_BASE_URL/cdn); a deployment may put a CDN in front. With OUTPUT_URLS=signed the
 * bytes do not pass through the gateway: it answers 302 to a presigned GET of the bucket, made
 * fresh at each request (the record's `output_url` stays here, so it holds for the whole retention).
 */
@ApiTags('outputs')
@Controller('cdn')
export class OutputsController {
  private readonly signedTtlSeconds: number | null;

  constructor(
    @Inject(GATEWAY_SETTINGS) settings: GatewaySettings,
    private readonly rpc: RpcClient,
    @Optional() @Inject(OutputStorage) private readonly storage: OutputStorage | null,
  ) {
    this.signedTtlSeconds = settings.outputUrls?.mode === 'signed' ? settings.outputUrls.signedTtlSeconds : null;
  }

  @Get(':shard/:file')
  @ApiOperation({
    operationId: 'getOutput',
    summary: 'Download an output',
    description:
      "A generation's output, at the `output_url` of its record (no API key: the URL is unguessable). Kept for " +
      'OUTPUT_RETENTION_HOURS after completion (`output_expires_at`), then deleted: 410. One byte range may be asked ' +
      '(`Range: bytes=a-b`: 206); `If-None-Match` with its ETag: 304. A deployment with OUTPUT_URLS=signed answers ' +
      '302 to a presigned URL of its object store instead, valid OUTPUT_URL_TTL_SECONDS (a new one at each request).',
  })
  @ApiParam({ name: 'shard', description: 'Two hex digits.', example: '9b', schema: { type: 'string', pattern: '^[0-9a-f]{2}$' } })
  @ApiParam({
    name: 'file',
    description: '32 hex digits and the extension of the format.',
    example: '9b1f0c6de2a84f7c8e3a5d2b1c0f4e6a.png',
    schema: { type: 'string', pattern: `^[0-9a-f]{32}\\.(${OUTPUT_EXTENSIONS.join('|')})$` },
  })
  @ApiOkResponse({
    description: `The file, with Cache-Control: ${OUTPUT_CACHE_CONTROL}, an ETag and Accept-Ranges: bytes.`,
    headers: COMMON_HEADERS,
    content: Object.fromEntries(Object.values(OUTPUT_FORMATS).map((f) => [f.contentType, { schema: { type: 'string', format: 'binary' } }])),
  })
  @ApiResponse({
    status: 206,
    description: 'The byte range asked for (`Range: bytes=a-b`, one range), with Content-Range.',
    headers: COMMON_HEADERS,
    content: Object.fromEntries(Object.values(OUTPUT_FORMATS).map((f) => [f.contentType, { schema: { type: 'string', format: 'binary' } }])),
  })
  @ApiResponse({ status: 302, description: 'OUTPUT_URLS=signed: `Location` is a presigned GET of the object, valid OUTPUT_URL_TTL_SECONDS.', headers: COMMON_HEADERS })
  @ApiResponse({ status: 304, description: '`If-None-Match` names this ETag: the cached copy is current.', headers: COMMON_HEADERS })
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
  async output(
    @Param('shard') shard: string,
    @Param('file') file: string,
    @Headers('range') range: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Headers('if-range') ifRange: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
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
    if (this.signedTtlSeconds !== null) {
      const location = await this.storage.signedUrl(key, this.signedTtlSeconds);
      if (location) {
        // A new URL at each request: never cached, so no client is handed one about to expire.
        await reply.code(302).header('Location', location).header('Cache-Control', 'no-store').send();
        return;
      }
    }
    // The object under a key never changes: its token is a strong validator.
    const etag = `"${file.slice(0, file.indexOf('.'))}"`;
    reply
      .header('Content-Type', object.contentType)
      // Immutable while it exists, but deleted at the end of its retention: caches keep it an hour at most.
      .header('Cache-Control', OUTPUT_CACHE_CONTROL)
      .header('ETag', etag)
      .header('Accept-Ranges', 'bytes')
      .header('X-Content-Type-Options', 'nosniff');
    if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
      await reply.code(304).send();
      return;
    }
    const part = ifRange === undefined || ifRange.trim() === etag ? parseByteRange(range, object.size) : null;
    if (part) {
      await reply
        .code(206)
        .header('Content-Range', `bytes ${part.start}-${part.end}/${object.size}`)
        .header('Content-Length', String(part.end - part.start + 1))
        .send(object.open(part));
      return;
    }
    await reply.header('Content-Length', String(object.size)).send(object.open());
  }
}
