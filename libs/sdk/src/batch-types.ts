import type { Generation } from './generated/openapi-types.js';

// Written by hand until the gateway's OpenAPI document carries the batch schemas (the names are the
// document's: Batch, BatchRequestCounts, BatchLineResult, BatchPage, CreateBatchRequest); then these
// come from generated/openapi-types.ts like the other API types.

/** `request_counts` of a batch: every line is in exactly one of these; `total` is their sum. */
export interface BatchRequestCounts {
  total: number;
  /** Refused by the check at creation (`invalid_lines: "skip"`): in the errors file, never charged. */
  invalid: number;
  /** Not admitted yet: no credits held. */
  waiting: number;
  /** Admitted (credits held), its generation queued. */
  queued: number;
  processing: number;
  completed: number;
  failed: number;
  canceled: number;
  expired: number;
}

/** A batch (`GET /api/v1/batches/{id}`). */
export interface Batch {
  id: string;
  object: 'batch';
  /** `canceling`: canceled, with admitted generations still running. */
  status: 'in_progress' | 'canceling' | 'completed' | 'canceled' | 'expired';
  /** As given at creation (`24h`, `90m`, `3600s`). */
  completion_window: string;
  created_at: string;
  /** The end of the completion window: lines not admitted by then are `expired`. */
  expires_at: string;
  /** When the batch reached `completed`, `canceled` or `expired`; null before. */
  finished_at: string | null;
  canceled_at: string | null;
  request_counts: BatchRequestCounts;
  /** Credits charged so far for the batch's completed lines. */
  credits_charged: number;
  /** Where `batch.completed` goes; null: nowhere. */
  webhook_url: string | null;
  metadata: Record<string, string>;
}

/** One line of the results file (`completed`) or the errors file (every other outcome). */
export interface BatchLineResult {
  /** The line's number in the file, from 1. */
  line: number;
  /** Null only for an invalid line whose `custom_id` could not be read. */
  custom_id: string | null;
  outcome: 'completed' | 'failed' | 'canceled' | 'expired' | 'invalid';
  /** The line's generation, once it was admitted; null otherwise. */
  generation: Generation | null;
  /** Why it did not complete (`validation_error`, `insufficient_credits`, `generation_failed`, `canceled`, `expired`, ...); null when completed. */
  error: { code: string; message: string } | null;
}

/** A page of the account's batches, newest first. */
export interface BatchPage {
  data: Batch[];
  next_cursor: string | null;
}

/** The JSON form of `POST /api/v1/batches`: a JSONL file uploaded before. */
export interface CreateBatchRequest {
  input_file_id: string;
  completion_window?: string;
  invalid_lines?: 'reject' | 'skip';
  webhook_url?: string;
  metadata?: Record<string, string>;
}
