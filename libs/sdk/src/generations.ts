import type { ApiCalls } from './api-calls.js';
import { GenerationApiError } from './errors.js';
import type { CreateGenerationBody, CreateGenerationOptions, ListGenerationsOptions, RequestOptions, WaitOptions } from './options.js';
import { sleep } from './retry.js';
import { SseParser } from './sse.js';
import type { Generation, GenerationPage, GenerationStatus, GenerationStreamEvent } from './types.js';

const isFinal = (status: GenerationStatus) => status === 'completed' || status === 'failed';

function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

const generationPath = (id: string) => `/api/v1/generations/${encodeURIComponent(id)}`;

/** Generations: submit, read, list, cancel, follow live, wait. */
export class Generations {
  constructor(private readonly client: ApiCalls) {}

  /**
   * Submits a generation. Synchronous (image) models usually answer with the finished record;
   * others with it queued or processing (then `wait` for it). Retried safely: an Idempotency-Key is
   * sent with every create (yours, or one made here).
   */
  create(body: CreateGenerationBody, options: CreateGenerationOptions = {}): Promise<Generation> {
    const headers: Record<string, string> = { 'idempotency-key': options.idempotencyKey ?? newIdempotencyKey() };
    if (options.cancelAfter !== undefined) headers['cancel-after'] = String(options.cancelAfter);
    return this.client.call<Generation>('POST', '/api/v1/generate', { body, headers, idempotent: true, signal: options.signal });
  }

  get(id: string, options: RequestOptions = {}): Promise<Generation> {
    return this.client.call<Generation>('GET', generationPath(id), { idempotent: true, signal: options.signal });
  }

  /** Cancels a queued or running generation (it becomes `failed`, refunded); 409 once it has finished. */
  cancel(id: string, options: RequestOptions = {}): Promise<Generation> {
    // Safe to retry: canceling a canceled generation answers it again.
    return this.client.call<Generation>('POST', `${generationPath(id)}/cancel`, { idempotent: true, signal: options.signal });
  }

  /** One page of the caller's generations, newest first. */
  page(options: ListGenerationsOptions & { cursor?: string } = {}): Promise<GenerationPage> {
    const { status, type, limit, cursor, signal } = options;
    return this.client.call<GenerationPage>('GET', '/api/v1/generations', { query: { status, type, limit, cursor }, idempotent: true, signal });
  }

  /** Every generation of the caller (newest first), page after page: `for await (const g of client.generations.list())`. */
  async *list(options: ListGenerationsOptions = {}): AsyncGenerator<Generation, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.page({ ...options, cursor });
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  /**
   * The generation's records as they change (Server-Sent Events), ending after the final one
   * (`completed` or `failed`). A dropped connection is resumed (Last-Event-ID, after the server's
   * `retry` delay); a record the stream already gave is not given twice.
   */
  async *stream(id: string, options: RequestOptions = {}): AsyncGenerator<GenerationStreamEvent, void, undefined> {
    let lastEventId: string | null = null;
    let retryMs = 1000;
    let last: string | null = null;
    let reconnects = 0;
    for (;;) {
      const headers: Record<string, string> = lastEventId ? { 'last-event-id': lastEventId } : {};
      const response = await this.client.send('GET', `${generationPath(id)}/events`, { headers, idempotent: true, signal: options.signal }, 'text/event-stream');
      // 204: Last-Event-ID named the final record, which this stream already gave.
      if (response.status === 204) return;
      const parser = new SseParser();
      const decoder = new TextDecoder();
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let finished = false;
      try {
        for (;;) {
          let chunk: Awaited<ReturnType<typeof reader.read>>;
          try {
            chunk = await reader.read();
          } catch (error) {
            if (options.signal?.aborted) throw new GenerationApiError({ code: 'aborted', status: 0, message: 'The request was aborted.', cause: error });
            break; // the connection dropped: reconnect below
          }
          if (chunk.done) break;
          for (const record of parser.push(decoder.decode(chunk.value, { stream: true }))) {
            if (record.retryMs !== null) retryMs = record.retryMs;
            if (record.id !== null) lastEventId = record.id;
            if (record.data === '') continue;
            reconnects = 0;
            const data = JSON.parse(record.data) as Generation;
            // The server does not resend the Last-Event-ID record; an older server did, so skip a repeat.
            if (record.data !== last) {
              last = record.data;
              yield { event: record.event as GenerationStatus, id: record.id, data };
            }
            if (isFinal(data.status)) finished = true;
          }
          if (finished) return;
        }
      } finally {
        await reader.cancel().catch(() => undefined);
      }
      if (++reconnects > 5) throw new GenerationApiError({ code: 'connection_error', status: 0, message: 'The live stream kept closing before the generation finished.' });
      await sleep(retryMs, options.signal);
    }
  }

  /**
   * Resolves with the generation once it is `completed` or `failed`: follows its live stream, and
   * reads it every `pollIntervalMs` when the stream is unavailable (a proxy that buffers, the
   * account's stream limit). Rejects with code `timeout` after `timeoutMs`.
   */
  async wait(id: string, options: WaitOptions = {}): Promise<Generation> {
    const { timeoutMs = 600_000, pollIntervalMs = 1000 } = options;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const onAbort = () => deadline.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const timedOut = () => new GenerationApiError({ code: 'timeout', status: 0, message: `Generation ${id} did not finish within ${timeoutMs} ms.` });
    try {
      try {
        for await (const event of this.stream(id, { signal: deadline.signal })) if (isFinal(event.data.status)) return event.data;
      } catch (error) {
        if (!(error instanceof GenerationApiError)) throw error;
        if (error.code === 'aborted') throw options.signal?.aborted ? error : timedOut();
        // The generation itself is the problem (unknown id, no permission): polling would not help.
        if ([401, 403, 404].includes(error.status)) throw error;
      }
      for (;;) {
        const generation = await this.get(id, { signal: deadline.signal }).catch((error: unknown) => {
          throw error instanceof GenerationApiError && error.code === 'aborted' && !options.signal?.aborted ? timedOut() : error;
        });
        if (isFinal(generation.status)) return generation;
        await sleep(pollIntervalMs, deadline.signal).catch(() => {
          throw options.signal?.aborted ? new GenerationApiError({ code: 'aborted', status: 0, message: 'The request was aborted.' }) : timedOut();
        });
      }
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}
