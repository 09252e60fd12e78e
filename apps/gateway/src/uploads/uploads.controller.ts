import { Controller, Headers, HttpCode, Post, Req, UseGuards } from '@nestjs/common';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { UploadReply } from '@gen/contracts';
import { OUTPUT_FORMATS } from '@gen/storage';
import type { FastifyRequest } from 'fastify';
import { ApiAuthenticated, ApiErrors, missingScopeExample, successHeaders } from '../docs/api-docs.decorators';
import { ApiKeyGuard, RequireScope } from '../auth/api-key.guard';
import type { Principal } from '../auth/api-keys.service';
import { CurrentPrincipal } from '../auth/principal.decorator';
import { UploadDto } from './upload.dto';
import { rawBodyOf, RawBodyRoute } from '../http-common/raw-body';
import { JSONL_MEDIA_TYPES } from '../http-common/bounded-body';
import { UploadsService } from './uploads.service';

const MEDIA_TYPES = [...new Set(Object.values(OUTPUT_FORMATS).map((f) => f.contentType)), ...JSONL_MEDIA_TYPES];

@ApiTags('uploads')
@ApiAuthenticated()
@Controller('api/v1')
@UseGuards(ApiKeyGuard)
export class UploadsController {
  constructor(private readonly uploads: UploadsService) {}

  @Post('uploads')
  @RawBodyRoute()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createUpload',
    summary: 'Upload an input file (an image, video or audio a model takes, or a batch\'s JSONL file)',
    description:
      'The body is the file itself, with its media type as Content-Type (not multipart, not JSON); its bytes must be of that type. ' +
      'At most UPLOAD_MAX_MB (default 50 MB; 413 above). The answer names it: give its `id` or `url` to a media input ' +
      '(`format: "uri"`) of `POST /generate`. Only this account can use it, until `expires_at` (UPLOAD_TTL_HOURS, default 24); ' +
      'then it is deleted. Its `url` needs no key (it is unguessable), so a provider can read it. ' +
      'A JSONL file (`application/jsonl` or `application/x-ndjson`, a batch\'s input) is kept for `POST /api/v1/batches` ' +
      '(`input_file_id`); it is not served, and its `url` is a URN naming it (`urn:upload:upl_...`).',
  })
  @ApiConsumes(...MEDIA_TYPES)
  @ApiBody({ description: 'The file, as it is.', schema: { type: 'string', format: 'binary' } })
  @ApiCreatedResponse({ type: UploadDto, headers: successHeaders() })
  @ApiErrors(
    { status: 403, examples: missingScopeExample('generate') },
    {
      status: 413,
      examples: { upload_too_large: { summary: 'Larger than UPLOAD_MAX_MB', message: 'An upload is at most 50 MB (UPLOAD_MAX_MB).' } },
    },
    {
      status: 415,
      examples: {
        media_type: {
          summary: 'No Content-Type, or one the service does not take',
          message: `Send the file as the body, with its media type as Content-Type: one of ${MEDIA_TYPES.join(', ')}.`,
        },
      },
    },
    {
      status: 422,
      examples: {
        mismatch: { summary: 'The bytes are not of the type the Content-Type names', message: 'The file is image/jpeg, not the image/png its Content-Type says.' },
        empty: { summary: 'No body', message: 'The upload is empty: send the file as the request body.' },
      },
    },
  )
  @RequireScope('generate')
  upload(@CurrentPrincipal() principal: Principal, @Headers('content-type') contentType: string | undefined, @Req() request: FastifyRequest): Promise<UploadReply> {
    return this.uploads.create(principal.accountId, contentType, rawBodyOf(request));
  }
}
