import type { CallOptions } from './options.js';

/**
 * What the resources (`generations`, `models`, `credits`, `uploads`) need of the client: its calls,
 * with the retries and errors the client owns. `GenerationClient` implements it; the resources import
 * this, not the client, which builds them.
 */
export interface ApiCalls {
  /** @internal One API call, its JSON answer. */
  call<T>(method: string, path: string, options: CallOptions): Promise<T>;
  /** @internal The response of a successful call (any content type). */
  send(method: string, path: string, options: CallOptions, accept: string): Promise<Response>;
}
