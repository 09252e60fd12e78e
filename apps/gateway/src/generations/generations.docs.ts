import { applyDecorators } from '@nestjs/common';
import { ApiAcceptedResponse, ApiHeader, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { ApiErrors, ErrorDoc, HeadersObject, missingScopeExample, successHeaders } from '../docs/api-docs.decorators';
import { GenerationDto } from '../docs/generation.dto';
import { GENERATION_ID_NOT_FOUND } from './generation-id';

/** The example id of a generation that does not exist (what the document's 404 examples name). */
export const UNKNOWN_GENERATION_ID = '00000000-0000-4000-8000-000000000000';

/** 404 on every route of one generation: an id that is not one, and one that no generation of the caller's has. */
export const GENERATION_NOT_FOUND: ErrorDoc = {
  status: 404,
  examples: {
    unknown_id: { summary: 'No generation of this account has that id', message: `No generation with id "${UNKNOWN_GENERATION_ID}".` },
    not_an_id: { summary: 'The id is not a generation id (a UUID)', message: GENERATION_ID_NOT_FOUND },
  },
};
export const READ_FORBIDDEN: ErrorDoc = { status: 403, examples: missingScopeExample('read') };
export const GENERATE_FORBIDDEN: ErrorDoc = { status: 403, examples: missingScopeExample('generate') };

const SUBMIT_HEADERS: HeadersObject = {
  Location: { description: 'The URL of the generation: /api/v1/generations/{id}', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '"true" when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string' },
  },
};

/**
 * POST /api/v1/generate in the document: 200 with the finished record (synchronous models within the
 * wait budget), else 202 with it as it stands; with `Idempotency-Key`, a repeat answers the first response.
 */
export const ApiSubmitGeneration = () =>
  applyDecorators(
    ApiOperation({
      operationId: 'createGeneration',
      summary: 'Submit a generation',
      description:
        'Reserves the model\'s price and queues the job. Synchronous (image) models answer 200 with the finished record ' +
        'when it completes within the wait budget; otherwise 202 with the record as it stands. Both carry Location.',
    }),
    // The document lists the headers in this order (applyDecorators applies them first to last).
    ApiHeader({
      name: 'Cancel-After',
      required: false,
      description:
        'A deadline: the job is canceled (failed, refunded, canceled_at set) if it has not finished this long after submit, ' +
        'queued or running. A duration such as 30s, 5m or 1h30m, or plain seconds; 1 second to 24 hours.',
    }),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Makes the submit safe to retry: the same key and body within 24 h return the first answer and charge once; ' +
        'the same key with another body is 422.',
    }),
    ApiOkResponse({ type: GenerationDto, description: 'Finished (completed or failed).', headers: successHeaders(SUBMIT_HEADERS) }),
    ApiAcceptedResponse({
      type: GenerationDto,
      description: 'Accepted; poll Location or wait for the webhook.',
      headers: successHeaders(SUBMIT_HEADERS),
    }),
    ApiErrors(
      400,
      {
        status: 402,
        examples: {
          below_minimum: {
            summary: "Available credits below the model's minimum",
            message: 'Insufficient credits: model "pixel-flux-1" needs at least 4 available credits; this account has 1.',
          },
          spending_cap: {
            summary: "The hold would pass the API key's spending cap (code spending_cap_reached)",
            code: 'spending_cap_reached',
            message:
              'Spending cap reached: this API key may spend 10 credits per day (UTC); it has spent 8 today and this generation needs 4. ' +
              'The cap resets at 2026-11-27T00:00:00Z.',
          },
        },
      },
      {
        status: 403,
        examples: {
          ...missingScopeExample('generate'),
          plan: { summary: 'The model needs a higher plan', message: 'Model "pixel-flux-1-hd" needs the pro plan or above; this account is on free.' },
        },
      },
      413,
      415,
      {
        status: 422,
        examples: {
          fields: { summary: 'Required fields missing (`{}`)', message: 'model is required; prompt is required; type is required' },
          unknown_model: { summary: 'A model id the catalogue does not have', message: 'model: unknown model "fox-9". See GET /api/v1/models.' },
          idempotency_key_reused: {
            summary: 'An Idempotency-Key used before with another body',
            message:
              'Idempotency-Key: this key was already used with a different request body in the last 24 hours. ' +
              'Send the same body to get the original response, or use a new key for a new request.',
          },
        },
      },
    ),
  );
