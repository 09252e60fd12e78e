import {
  AddBatchLinesReply,
  AddBatchLinesRequest,
  BatchLinePayload,
  BatchLineProblemPayload,
  CreateBatchRequest,
  MAX_BATCH_LINES_PER_MESSAGE,
  SealBatchRequest,
  Subjects,
} from '@gen/contracts';
import { ServiceUnavailableError } from '@gen/errors';
import { NotDeliveredError, RpcClient } from '@gen/transport';
import { withRpcRetries } from '../rpc/rpc-retries';

/** Bytes of lines one `generation.batch.lines` message carries at most: well under NATS's 1 MiB payload. */
export const MAX_LINES_MESSAGE_BYTES = 512 * 1024;

/** What a gateway says when no generation service handles batches (one a release older: docs/design/batches.md). */
export const BATCHES_NEED_NEWER_GENERATION =
  'Batches need generation 1.1 or later: no generation service answered. Retry once the generation service is upgraded (or running).';

type Chunk = Pick<AddBatchLinesRequest, 'lines' | 'invalid'>;

/**
 * The file's lines (valid and refused, in line order) in chunks of at most MAX_BATCH_LINES_PER_MESSAGE
 * lines and about MAX_LINES_MESSAGE_BYTES of JSON each (a line alone larger than that goes alone).
 */
export function chunkLines(lines: readonly BatchLinePayload[], invalid: readonly BatchLineProblemPayload[]): Chunk[] {
  const all = [...lines.map((l) => ({ line: l.line, valid: l as BatchLinePayload | null, invalid: null as BatchLineProblemPayload | null })), ...invalid.map((p) => ({ line: p.line, valid: null, invalid: p }))];
  all.sort((a, b) => a.line - b.line);
  const chunks: Chunk[] = [];
  let current: Chunk = { lines: [], invalid: [] };
  let count = 0;
  let bytes = 0;
  for (const entry of all) {
    const size = Buffer.byteLength(JSON.stringify(entry.valid ?? entry.invalid));
    if (count > 0 && (count + 1 > MAX_BATCH_LINES_PER_MESSAGE || bytes + size > MAX_LINES_MESSAGE_BYTES)) {
      chunks.push(current);
      current = { lines: [], invalid: [] };
      count = 0;
      bytes = 0;
    }
    if (entry.valid) current.lines.push(entry.valid);
    else if (entry.invalid) current.invalid.push(entry.invalid);
    count++;
    bytes += size;
  }
  if (count > 0) chunks.push(current);
  return chunks;
}

/**
 * Hands a checked batch to generation: `generation.batch.create`, its lines in chunks, then
 * `generation.batch.seal`. Each message is keyed by the batch id (a chunk sent again keeps its lines
 * as they were), so each is retried when no replica answered. A batch left unsealed is invisible and
 * deleted by generation after ten minutes.
 */
export class BatchHandover {
  constructor(private readonly rpc: RpcClient) {}

  async send(create: CreateBatchRequest, lines: readonly BatchLinePayload[], invalid: readonly BatchLineProblemPayload[]): Promise<void> {
    try {
      await withRpcRetries(() => this.rpc.request<unknown, CreateBatchRequest>(Subjects.generationBatchCreate, create));
    } catch (error) {
      // Nothing subscribes to generation.batch.*: a generation service older than batches.
      if (error instanceof NotDeliveredError) throw new ServiceUnavailableError(BATCHES_NEED_NEWER_GENERATION);
      throw error;
    }
    const { batchId, accountId } = create;
    for (const chunk of chunkLines(lines, invalid)) {
      await withRpcRetries(() => this.rpc.request<AddBatchLinesReply, AddBatchLinesRequest>(Subjects.generationBatchLines, { batchId, accountId, ...chunk }));
    }
    await withRpcRetries(() => this.rpc.request<unknown, SealBatchRequest>(Subjects.generationBatchSeal, { batchId, accountId }));
  }
}
