import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import {
  BatchLinesReply,
  BatchView,
  CancelBatchRequest,
  GetBatchRequest,
  ListBatchesReply,
  ListBatchesRequest,
  ListBatchLinesRequest,
  Subjects,
} from '@gen/contracts';
import { ServiceUnavailableError } from '@gen/errors';
import { NotDeliveredError, RpcClient } from '@gen/transport';
import { withRpcRetries } from '../rpc/rpc-retries';
import { BATCHES_NEED_NEWER_GENERATION } from './batch-handover';

/** Lines read from generation per request while a results or errors file is sent. */
export const BATCH_FILE_PAGE = 1_000;

export interface BatchCommand {
  accountId: string;
  batchId: string;
}

/** A read with no generation that handles batches says so (503), as a create does. */
async function batchCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await withRpcRetries(call);
  } catch (error) {
    if (error instanceof NotDeliveredError) throw new ServiceUnavailableError(BATCHES_NEED_NEWER_GENERATION);
    throw error;
  }
}

/** The account's batches (API and dashboard): one, a page, a cancel, and the results and errors files. */
@Injectable()
export class BatchQueries {
  constructor(private readonly rpc: RpcClient) {}

  get({ accountId, batchId }: BatchCommand): Promise<BatchView> {
    return batchCall(() => this.rpc.request<BatchView, GetBatchRequest>(Subjects.generationBatchGet, { accountId, batchId }));
  }

  list(command: { accountId: string; limit?: number; cursor?: string }): Promise<ListBatchesReply> {
    const { accountId, limit, cursor } = command;
    return batchCall(() => this.rpc.request<ListBatchesReply, ListBatchesRequest>(Subjects.generationBatchList, { accountId, limit: limit ?? 20, cursor }));
  }

  /** Canceling twice answers the batch again: safe to send to another replica. */
  cancel({ accountId, batchId }: BatchCommand): Promise<BatchView> {
    return batchCall(() => this.rpc.request<BatchView, CancelBatchRequest>(Subjects.generationBatchCancel, { accountId, batchId }));
  }

  /**
   * The results file (`completed` lines) or the errors file (the rest) as JSONL, read from generation
   * a page at a time while it is sent, never whole in memory. The first page is read before anything
   * is sent, so an unknown batch is an ordinary 404; a failure later cuts the download short.
   */
  async file(command: BatchCommand, file: 'results' | 'errors'): Promise<Readable> {
    const page = (afterLine: number) =>
      batchCall(() => this.rpc.request<BatchLinesReply, ListBatchLinesRequest>(Subjects.generationBatchResults, { ...command, file, afterLine, limit: BATCH_FILE_PAGE }));
    const first = await page(0);
    const pages = async function* (): AsyncGenerator<string> {
      let current = first;
      for (;;) {
        if (current.data.length > 0) yield current.data.map((line) => `${JSON.stringify(line)}\n`).join('');
        if (current.next_after_line === null) return;
        current = await page(current.next_after_line);
      }
    };
    return Readable.from(pages());
  }
}
