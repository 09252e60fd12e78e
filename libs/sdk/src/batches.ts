import type { ApiCalls } from './api-calls.js';
import { type BatchInput, jsonlBody, JSONL_MEDIA_TYPE, uploadedFileId } from './batch-input.js';
import type { Batch, BatchLineResult, BatchPage, CreateBatchRequest } from './types.js';
import { GenerationApiError } from './errors.js';
import { jsonlValues } from './jsonl.js';
import type { RequestOptions } from './options.js';
import { sleep } from './retry.js';

export interface CreateBatchOptions extends RequestOptions {
  /** How long the batch may take: `24h` by default; `60s` to `168h`, written `<n>s`, `<n>m` or `<n>h`. */
  completionWindow?: string;
  /** `reject` (default): any bad line refuses the whole file (422 `validation_error`, its `lines` names them); `skip`: the good lines run, the bad ones are in the errors file. */
  invalidLines?: 'reject' | 'skip';
  /** Where `batch.completed` goes; else the key's default webhook URL. */
  webhookUrl?: string;
  /**
   * Your own keys and values, returned on the batch. Only with an uploaded file (`{ inputFileId }`: upload the JSONL with
   * `uploads.create(data, { contentType: 'application/jsonl' })`): the API takes them in its JSON form only.
   */
  metadata?: Record<string, string>;
  /** Makes the create safe to retry (the same key answers the first batch); one is made for every create unless you give one. */
  idempotencyKey?: string;
}

export interface ListBatchesOptions extends RequestOptions {
  /** Page size, 1 to 100 (the iterator still goes through every page); default the server's. */
  limit?: number;
  /** Where to start: a `next_cursor` of an earlier page. */
  cursor?: string;
}

export interface WaitForBatchOptions extends RequestOptions {
  /** Give up after this long, in ms (GenerationApiError, code `timeout`); default none: a batch ends by its `expires_at`, once the lines it admitted finish. */
  timeoutMs?: number;
  /** How often to read the batch, in ms; default 5000. */
  pollIntervalMs?: number;
}

const FINAL_STATUSES: ReadonlyArray<Batch['status']> = ['completed', 'canceled', 'expired'];
/** Downloads of a results file in a row that drop before giving a line, before giving up. */
const MAX_RESUMES = 5;

const batchPath = (id: string) => `/api/v1/batches/${encodeURIComponent(id)}`;

/** Batches: many generations from one JSONL file, run when the account's slots are free, one webhook at the end. */
export class Batches {
  constructor(private readonly client: ApiCalls) {}

  /**
   * Creates a batch (`POST /api/v1/batches`) from request lines, a JSONL file, or an uploaded one.
   * Every line is checked as `generations.create` checks its body; with `invalidLines: 'reject'` a bad
   * line refuses the file: GenerationApiError 422 `validation_error` whose `lines` names each.
   * Retried safely: an Idempotency-Key goes with every create (yours, or one made here).
   */
  async create(input: BatchInput, options: CreateBatchOptions = {}): Promise<Batch> {
    const { completionWindow, invalidLines, webhookUrl, metadata, signal } = options;
    const headers = { 'idempotency-key': options.idempotencyKey ?? globalThis.crypto.randomUUID() };
    const fileId = uploadedFileId(input);
    if (fileId !== null) {
      const body: CreateBatchRequest = { input_file_id: fileId, completion_window: completionWindow, invalid_lines: invalidLines, webhook_url: webhookUrl, metadata };
      return this.client.call<Batch>('POST', '/api/v1/batches', { body, headers, idempotent: true, signal });
    }
    if (metadata !== undefined) throw new TypeError('metadata: the API takes it with an uploaded file only (create the batch from { inputFileId })');
    const query = { completion_window: completionWindow, invalid_lines: invalidLines, webhook_url: webhookUrl };
    const raw = { data: jsonlBody(input as Exclude<BatchInput, { inputFileId: string }>), contentType: JSONL_MEDIA_TYPE };
    return this.client.call<Batch>('POST', '/api/v1/batches', { raw, query, headers, idempotent: true, signal });
  }

  get(id: string, options: RequestOptions = {}): Promise<Batch> {
    return this.client.call<Batch>('GET', batchPath(id), { idempotent: true, signal: options.signal });
  }

  /** Cancels the lines not admitted yet and the admitted ones still queued (refunded); running ones finish. */
  cancel(id: string, options: RequestOptions = {}): Promise<Batch> {
    // Safe to retry: canceling a canceled batch answers it again.
    return this.client.call<Batch>('POST', `${batchPath(id)}/cancel`, { idempotent: true, signal: options.signal });
  }

  /** One page of the account's batches, newest first. */
  page(options: ListBatchesOptions = {}): Promise<BatchPage> {
    const { limit, cursor, signal } = options;
    return this.client.call<BatchPage>('GET', '/api/v1/batches', { query: { limit, cursor }, idempotent: true, signal });
  }

  /** Every batch of the account (newest first), page after page: `for await (const b of client.batches.list())`. */
  async *list(options: ListBatchesOptions = {}): AsyncGenerator<Batch, void, undefined> {
    let cursor = options.cursor;
    do {
      const page = await this.page({ ...options, cursor });
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** The completed lines, in line order, read as they arrive (partial while the batch runs). */
  results(id: string, options: RequestOptions = {}): AsyncGenerator<BatchLineResult, void, undefined> {
    return this.lines(id, 'results', options);
  }

  /** The lines that did not complete (`failed`, `canceled`, `expired`, `invalid`), in line order, read as they arrive. */
  errors(id: string, options: RequestOptions = {}): AsyncGenerator<BatchLineResult, void, undefined> {
    return this.lines(id, 'errors', options);
  }

  /**
   * Resolves with the batch once it is `completed`, `canceled` or `expired`, reading it every
   * `pollIntervalMs`. Rejects with code `timeout` after `timeoutMs`.
   */
  async wait(id: string, options: WaitForBatchOptions = {}): Promise<Batch> {
    const { timeoutMs, pollIntervalMs = 5000, signal } = options;
    const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
    for (;;) {
      const batch = await this.get(id, { signal });
      if (FINAL_STATUSES.includes(batch.status)) return batch;
      if (Date.now() + pollIntervalMs >= deadline) {
        throw new GenerationApiError({ code: 'timeout', status: 0, message: `Batch ${id} did not finish within ${timeoutMs} ms.` });
      }
      await sleep(pollIntervalMs, signal);
    }
  }

  /**
   * A JSONL file of the batch, line by line. A download that drops is taken again from the start and
   * the lines already given are skipped (the file is in line order), so none is given twice.
   */
  private async *lines(id: string, file: 'results' | 'errors', options: RequestOptions): AsyncGenerator<BatchLineResult, void, undefined> {
    let lastLine = 0;
    for (let resumes = 0; ; resumes++) {
      const response = await this.client.send('GET', `${batchPath(id)}/${file}`, { idempotent: true, signal: options.signal }, JSONL_MEDIA_TYPE);
      if (!response.body) return;
      try {
        for await (const result of jsonlValues<BatchLineResult>(response.body)) {
          if (result.line <= lastLine) continue;
          lastLine = result.line;
          resumes = 0;
          yield result;
        }
        return;
      } catch (error) {
        if (error instanceof SyntaxError) throw error;
        if (options.signal?.aborted) throw new GenerationApiError({ code: 'aborted', status: 0, message: 'The request was aborted.', cause: error });
        if (resumes >= MAX_RESUMES) {
          throw new GenerationApiError({ code: 'connection_error', status: 0, message: `The ${file} file of batch ${id} kept dropping before it ended.`, cause: error });
        }
      }
    }
  }
}
