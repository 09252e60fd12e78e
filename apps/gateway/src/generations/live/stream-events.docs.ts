import { applyDecorators } from '@nestjs/common';
import { ApiHeader, ApiNoContentResponse, ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { successHeaders } from '../../docs/api-docs.decorators';

/** What a client of the live status stream reads (two events of an image generation). */
const SSE_EXAMPLE = [
  'retry: 3000',
  '',
  'id: 0dPlm1vP3n6xFQx3gk7ZQA',
  'event: processing',
  'data: {"id":"3f8e2a1c-7b4d-4e9a-9c61-0d5b2f7a8e13","status":"processing","progress":0.4,"...":"..."}',
  '',
  'id: c2Jb8yq3V0tC9e1mWk4HRg',
  'event: completed',
  'data: {"id":"3f8e2a1c-7b4d-4e9a-9c61-0d5b2f7a8e13","status":"completed","output_url":"https://api.example.com/cdn/9b/9b1f0c6de2a84f7c8e3a5d2b1c0f4e6a.png","...":"..."}',
  '',
  '',
].join('\n');

/** The document's description of `GET /api/v1/generations/{id}/events` (its errors aside). */
export function ApiStreamEvents(): MethodDecorator {
  return applyDecorators(
    ApiOperation({
      operationId: 'streamGenerationEvents',
      summary: "A generation's status, live (Server-Sent Events)",
      description:
        'An event per change, named after the status (`queued` with its queue_position, `processing` with progress, then ' +
        '`completed` or `failed`), each carrying the whole record as its data; the stream ends after the final one. A ' +
        'finished generation gets its final record at once. A comment line every 15 s keeps proxies from closing it. At ' +
        'most SSE_STREAMS_PER_ACCOUNT streams per account (429 beyond). Each event id names the record it carries: a ' +
        'reconnect with Last-Event-ID gets the current record unless it is that one (then nothing until the next change, ' +
        'or 204 when that was the final record).',
    }),
    ApiHeader({
      name: 'Last-Event-ID',
      required: false,
      description:
        'The id of the last event received (EventSource sends it when it reconnects): that record is not sent again.',
    }),
    ApiOkResponse({
      description: 'The stream: one event per change, its data the whole record (GenerationDto) as JSON. Errors before the stream starts are JSON envelopes.',
      headers: successHeaders(),
      content: { 'text/event-stream': { schema: { type: 'string', description: 'Server-Sent Events' }, example: SSE_EXAMPLE } },
    }),
    ApiNoContentResponse({
      description: 'Last-Event-ID names the final record: the client has everything (EventSource stops reconnecting on 204).',
      headers: successHeaders(),
    }),
  );
}
