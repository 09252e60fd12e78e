import type { ApiCalls } from './api-calls.js';
import type { RequestOptions } from './options.js';
import type { Upload } from './types.js';

export interface CreateUploadOptions extends RequestOptions {
  /** The file's media type: image/png, image/jpeg, image/webp, video/mp4, video/webm, audio/wav, audio/mpeg or model/gltf-binary; application/jsonl for a batch's file. */
  contentType: string;
}

/** Input media: a file to give a model's media input (`format: "uri"`) by its `id` or `url`; or a batch's JSONL file (`batches.create({ inputFileId })`). */
export class Uploads {
  constructor(private readonly client: ApiCalls) {}

  /**
   * Stores a file for the account (`POST /api/v1/uploads`): usable by its `id` or `url` in a
   * generation's `input` until `expires_at`. Not retried: a repeat would store the file twice.
   */
  create(data: Uint8Array | ArrayBuffer | Blob, options: CreateUploadOptions): Promise<Upload> {
    return this.client.call<Upload>('POST', '/api/v1/uploads', { raw: { data, contentType: options.contentType }, idempotent: false, signal: options.signal });
  }
}
