import type { Generation, WebhookEvent as WebhookEventSchema } from './generated/openapi-types.js';

export type {
  Batch,
  BatchLineError,
  BatchLineResult,
  BatchPage,
  BatchRequestCounts,
  CreateBatchRequest,
  Credits,
  ErrorBody,
  ErrorEnvelope,
  GenerateRequest,
  Generation,
  GenerationPage,
  LedgerEntry,
  LedgerPage,
  Model,
  ModelList,
  PlanLimits,
  Upload,
  WebhookAttempt,
  WebhookDelivery,
} from './generated/openapi-types.js';

/** A generation's status: `queued` → `processing` → `completed` | `failed` (a cancellation is `failed`). */
export type GenerationStatus = Generation['status'];
export type GenerationType = Generation['type'];

/** The body every webhook event carries (its `event` tells completed from failed: see `WebhookEvent`). */
export type WebhookEventBody = WebhookEventSchema;

/** One record of a generation's live stream (`GET /api/v1/generations/{id}/events`). */
export interface GenerationStreamEvent {
  /** The record's status when it was sent: `queued`, `processing`, `completed` or `failed`. */
  event: GenerationStatus;
  /** The event's id (what a reconnect sends as Last-Event-ID). */
  id: string | null;
  /** The whole record. */
  data: Generation;
}
