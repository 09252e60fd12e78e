import { applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiExtraModels, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, getSchemaPath } from '@nestjs/swagger';
import { MAX_BATCH_LINES } from '@gen/contracts';
import { ApiErrors, ErrorDoc, HeadersObject, missingScopeExample, successHeaders } from '../docs/api-docs.decorators';
import { JSONL_MEDIA_TYPES } from '../http-common/bounded-body';
import { BatchDto, BatchLineResultDto } from './batch.dto';
import { BATCH_ID_NOT_FOUND } from './batch-id';
import { CreateBatchRequestDto } from './batch-options';

/** The example id of a batch that does not exist (what the document's 404 examples name). */
export const UNKNOWN_BATCH_ID = '00000000-0000-4000-8000-000000000000';

export const BATCH_NOT_FOUND: ErrorDoc = {
  status: 404,
  examples: {
    unknown_id: { summary: 'No batch of this account has that id', message: `No batch with id "${UNKNOWN_BATCH_ID}".` },
    not_an_id: { summary: 'The id is not a batch id (a UUID)', message: BATCH_ID_NOT_FOUND },
  },
};

const CREATE_HEADERS: HeadersObject = {
  Location: { description: 'The URL of the batch: /api/v1/batches/{id}', schema: { type: 'string' } },
  'Idempotent-Replayed': { description: '"true" when this is the stored answer to an earlier request with the same Idempotency-Key.', schema: { type: 'string' } },
};

const LINE_EXAMPLE = '{"custom_id": "shot-0001", "body": {"model": "pixel-flux-1", "prompt": "a red chair on white", "type": "TEXT_TO_IMAGE"}}\n';

/** POST /api/v1/batches in the document. */
export const ApiCreateBatch = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'createBatch',
      summary: 'Create a batch',
      description:
        `A JSONL file of up to ${MAX_BATCH_LINES.toLocaleString('en-US')} generate requests, one a line: \`{"custom_id", "body"}\` where \`body\` is what ` +
        '`POST /api/v1/generate` takes. Send the file as the body (`Content-Type: application/jsonl`, options in the query, at most BATCH_MAX_MB), ' +
        'or upload it first (`POST /api/v1/uploads`) and send `application/json` `{"input_file_id": ...}`. Every line is checked as a submit is ' +
        'and priced at the model\'s batch price; nothing is held until a line runs. Lines run when the account\'s parallel slots are free, ' +
        'within `completion_window`; `batch.completed` is sent to the webhook at the end. A deployment whose generation service is older ' +
        'than batches answers `503 service_unavailable` ("Batches need generation 1.1 or later..."). See docs/guide/batches.md.',
      requestBody: {
        required: true,
        description: 'The JSONL file itself, or (application/json) the id of a JSONL upload with the options.',
        content: {
          ...Object.fromEntries(JSONL_MEDIA_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' }, example: LINE_EXAMPLE }])),
          'application/json': { schema: { $ref: getSchemaPath(CreateBatchRequestDto) } },
        },
      },
    }),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description: 'Makes the create safe to retry: the same key and file within 24 h answer the first batch; the same key with another file is 422.',
    }),
    ApiExtraModels(CreateBatchRequestDto),
    ApiCreatedResponse({ type: BatchDto, headers: successHeaders(CREATE_HEADERS) }),
    ApiErrors(
      400,
      { status: 403, examples: missingScopeExample('generate') },
      {
        status: 413,
        examples: {
          file_too_large: { summary: 'A body larger than BATCH_MAX_MB', message: "A batch's file is at most 50 MB (BATCH_MAX_MB); larger files do not fit one batch." },
          too_many_lines: { summary: `More than ${MAX_BATCH_LINES} lines`, message: 'A batch has at most 50,000 lines; this file has 50,001.' },
        },
      },
      {
        status: 415,
        examples: {
          batch_media_type: {
            summary: 'Neither JSONL nor JSON',
            message: 'Send the batch file as the body with Content-Type: application/jsonl (options in the query), or application/json naming an upload ({"input_file_id": ...}).',
          },
        },
      },
      {
        status: 422,
        examples: {
          bad_lines: {
            summary: 'A line is not valid (`invalid_lines=reject`); `error.lines` lists them',
            message: '1 of the file\'s 3 lines is not valid; no batch was created. line 2 (custom_id "shot-0002"): body: model: unknown model "fox-9". See GET /api/v1/models.',
          },
          window: { summary: 'A completion window out of range', message: 'completion_window must be a duration such as 24h, 90m or 3600s, from 60s to 168h' },
        },
      },
    ),
  );

/** GET /api/v1/batches/{id}/results and /errors in the document. */
export const ApiBatchFile = (file: 'results' | 'errors') =>
  applyDecorators(
    ApiOperation({
      operationId: file === 'results' ? 'getBatchResults' : 'getBatchErrors',
      summary: file === 'results' ? "A batch's results file" : "A batch's errors file",
      description:
        (file === 'results'
          ? 'JSONL, one `BatchLineResult` per completed line, in line order, with its generation.'
          : 'JSONL, one `BatchLineResult` per line that did not complete (`failed`, `canceled`, `expired`, `invalid`), in line order, with its error.') +
        ' Partial while the batch runs. Empty (no line) when there is none.',
    }),
    ApiParam({ name: 'id', format: 'uuid' }),
    ApiExtraModels(BatchLineResultDto),
    ApiOkResponse({
      description: 'One JSON object a line.',
      headers: successHeaders(),
      content: { 'application/jsonl': { schema: { $ref: getSchemaPath(BatchLineResultDto) } } },
    }),
    ApiErrors({ status: 403, examples: missingScopeExample('read') }, BATCH_NOT_FOUND),
  );
