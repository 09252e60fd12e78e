import type { ApiCalls } from './api-calls.js';
import type { RequestOptions } from './options.js';
import type { Credits, LedgerEntry, LedgerPage, Model, ModelList } from './types.js';

/** The model catalogue. */
export class Models {
  constructor(private readonly client: ApiCalls) {}

  /** Every model, each `available` for this key's account or with its `unavailable_reason`. */
  async list(options: RequestOptions = {}): Promise<Model[]> {
    return (await this.client.call<ModelList>('GET', '/api/v1/models', { idempotent: true, signal: options.signal })).data;
  }

  /** One model with its `inputs` schema and price; GenerationApiError 404 `not_found` for an unknown id. */
  get(id: string, options: RequestOptions = {}): Promise<Model> {
    return this.client.call<Model>('GET', `/api/v1/models/${encodeURIComponent(id)}`, { idempotent: true, signal: options.signal });
  }
}

/** The account's credits and their ledger. */
export class CreditsApi {
  constructor(private readonly client: ApiCalls) {}

  /** Plan, limits, available and held credits. */
  get(options: RequestOptions = {}): Promise<Credits> {
    return this.client.call<Credits>('GET', '/api/v1/credits', { idempotent: true, signal: options.signal });
  }

  /** Every credit change, newest first, page after page. */
  async *ledger(options: RequestOptions & { limit?: number } = {}): AsyncGenerator<LedgerEntry, void, undefined> {
    let cursor: string | undefined;
    do {
      const page = await this.client.call<LedgerPage>('GET', '/api/v1/credits/ledger', {
        query: { limit: options.limit, cursor },
        idempotent: true,
        signal: options.signal,
      });
      yield* page.data;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
}

