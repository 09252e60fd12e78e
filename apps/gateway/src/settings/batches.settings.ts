import { int } from '@gen/config';

/** Batches (docs/guide/batches.md): how large a batch's file may be. */
export const BATCH_VARIABLES = {
  maxBytes: int('BATCH_MAX_MB', 50, 'largest JSONL file of `POST /api/v1/batches`, as its body (`413` above); a file uploaded first keeps to `UPLOAD_MAX_MB`', {
    min: 1,
    max: 1024,
    scale: 1024 * 1024,
  }),
};

export interface BatchSettings {
  maxBytes: number;
}

export const DEFAULT_BATCH_SETTINGS: BatchSettings = { maxBytes: 50 * 1024 * 1024 };
