/**
 * @generation-service/sdk: the Generation Service API for TypeScript and JavaScript (Node 20+,
 * Deno, Bun, browsers), with no dependencies: `GenerationClient` for the API, `verifyWebhook` for
 * the signed events the service sends.
 */
export { GenerationClient } from './client.js';
export { Generations } from './generations.js';
export { Batches } from './batches.js';
export type { CreateBatchOptions, ListBatchesOptions, WaitForBatchOptions } from './batches.js';
export type { BatchInput, BatchRequestLine } from './batch-input.js';
export { JsonlParser } from './jsonl.js';
export { Models, CreditsApi } from './catalogue.js';
export { parseRetryAfter, retryDelayMs } from './retry.js';
export type {
  CreateGenerationBody,
  CreateGenerationOptions,
  GenerationClientOptions,
  ListGenerationsOptions,
  RequestOptions,
  WaitOptions,
} from './options.js';
export { Uploads } from './uploads.js';
export type { CreateUploadOptions } from './uploads.js';
export { GenerationApiError, WebhookVerificationError } from './errors.js';
export type { BatchLineProblem, WebhookVerificationReason } from './errors.js';
export { SseParser } from './sse.js';
export type { SseRecord } from './sse.js';
export { verifyWebhook } from './webhooks.js';
export type {
  AccountLowBalanceEvent,
  GenerationCompletedEvent,
  GenerationFailedEvent,
  VerifiedWebhook,
  VerifyWebhookInput,
  WebhookEvent,
  WebhookRequestHeaders,
} from './webhooks.js';
export type * from './types.js';
