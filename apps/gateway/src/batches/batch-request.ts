import type { Readable } from 'node:stream';
import { DomainError, ValidationError } from '@gen/errors';
import type { FastifyReply } from 'fastify';
import { BodyTooLargeError, isJsonlContentType, readBounded } from '../http-common/bounded-body';
import { validateAs } from '../http-common/validate-body';
import type { GatewaySettings } from '../settings/gateway.tokens';
import { DEFAULT_BATCH_SETTINGS } from '../settings/batches.settings';
import { CreateBatchQueryDto, CreateBatchRequestDto } from './batch-options';
import type { BatchOptions, CreateBatchCommand } from './create-batch.service';

const MEDIA_TYPE_MESSAGE =
  'Send the batch file as the body with Content-Type: application/jsonl (options in the query), or application/json naming an upload ({"input_file_id": ...}).';

const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/**
 * The file and options of `POST /api/v1/batches` from its two forms: a JSONL body with the options in
 * the query (read whole, at most BATCH_MAX_MB: its lines are all checked before anything is created),
 * or a JSON body naming a JSONL upload with the options beside it.
 */
export async function batchFileOf(
  contentType: string | undefined,
  query: CreateBatchQueryDto,
  parsedBody: unknown,
  rawBody: AsyncIterable<Uint8Array> | undefined,
  settings: GatewaySettings,
): Promise<Pick<CreateBatchCommand, 'file' | 'options'>> {
  if (isJsonlContentType(contentType)) {
    const maxBytes = (settings.batches ?? DEFAULT_BATCH_SETTINGS).maxBytes;
    if (!rawBody) throw new ValidationError('The batch file is empty: send one JSON object a line as the request body.');
    let content: Buffer;
    try {
      content = await readBounded(rawBody, maxBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        throw new DomainError('payload_too_large', `A batch's file is at most ${megabytes(maxBytes)} (BATCH_MAX_MB); larger files do not fit one batch.`);
      }
      throw error;
    }
    const options: BatchOptions = { completionWindow: query.completion_window, invalidLines: query.invalid_lines, webhookUrl: query.webhook_url };
    return { file: { content }, options };
  }
  if (contentType !== undefined && /^application\/json\b/i.test(contentType.trim())) {
    if (Object.values(query).some((value) => value !== undefined)) {
      throw new ValidationError('With a JSON body, send the options in it (completion_window, invalid_lines, webhook_url), not in the query.');
    }
    if (parsedBody === undefined) throw new DomainError('bad_request', 'The request body is empty; send {"input_file_id": ...} or the JSONL file itself.');
    const checked = validateAs(CreateBatchRequestDto, parsedBody);
    if (!checked.ok) throw new ValidationError(checked.message);
    const body = checked.value;
    return {
      file: { inputFileId: body.input_file_id },
      options: { completionWindow: body.completion_window, invalidLines: body.invalid_lines, webhookUrl: body.webhook_url, metadata: body.metadata },
    };
  }
  throw new DomainError('unsupported_media_type', MEDIA_TYPE_MESSAGE);
}

/** Sends a results or errors file (JSONL), streamed as it is read. */
export function sendBatchFile(reply: FastifyReply, file: Readable): void {
  void reply.status(200).header('Content-Type', 'application/jsonl; charset=utf-8').header('Cache-Control', 'no-store').send(file);
}
