import type { CreateGenerationBody } from './options.js';

/**
 * One request of a batch file: `body` is what `POST /api/v1/generate` takes. `method` and `url` are
 * OpenAI's batch fields, accepted when they say `POST` and `/api/v1/generate`.
 */
export interface BatchRequestLine {
  /** Yours, 1 to 64 characters, unique in the file: how you find the line's result. */
  custom_id: string;
  body: CreateGenerationBody;
  method?: 'POST';
  url?: '/api/v1/generate';
}

/**
 * What a batch is made from: its request lines, a JSONL file as text, bytes or a `Blob`/`File`
 * (sent as it is), or a JSONL file uploaded before (`uploads`), by its id.
 */
export type BatchInput = readonly BatchRequestLine[] | string | Uint8Array | ArrayBuffer | Blob | { inputFileId: string };

export const JSONL_MEDIA_TYPE = 'application/jsonl';

/** The JSONL body of request lines: one JSON object a line. */
export function jsonlOf(lines: readonly BatchRequestLine[]): string {
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('');
}

/** The upload's id when the input names one; null for a file sent in the request. */
export function uploadedFileId(input: BatchInput): string | null {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return null;
  if (input instanceof Uint8Array || input instanceof ArrayBuffer || (typeof Blob !== 'undefined' && input instanceof Blob)) return null;
  const id = (input as { inputFileId?: unknown }).inputFileId;
  if (typeof id !== 'string' || id === '') throw new TypeError('inputFileId: the id of an uploaded JSONL file');
  return id;
}

/** The JSONL file of an input sent in the request, as fetch takes it. */
export function jsonlBody(input: Exclude<BatchInput, { inputFileId: string }>): Uint8Array | ArrayBuffer | Blob {
  if (typeof input === 'string') return new TextEncoder().encode(input);
  if (Array.isArray(input)) return new TextEncoder().encode(jsonlOf(input as readonly BatchRequestLine[]));
  return input as Uint8Array | ArrayBuffer | Blob;
}
