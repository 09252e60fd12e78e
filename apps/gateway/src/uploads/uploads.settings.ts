import { int } from '@gen/config';

/** Input media (docs/guide/uploads.md): what an upload, or a media URL fetched at submit, may be. */
export const UPLOAD_VARIABLES = {
  maxBytes: int('UPLOAD_MAX_MB', 50, 'largest upload (`POST /api/v1/uploads`, `413` above) and largest media URL fetched at submit (`422` above)', {
    min: 1,
    max: 5 * 1024,
    scale: 1024 * 1024,
  }),
  ttlSeconds: int('UPLOAD_TTL_HOURS', 24, 'how long an upload (or a fetched media URL) can be used, then the janitor deletes it', { min: 1, max: 24 * 30, scale: 3600 }),
  fetchTimeoutMs: int('MEDIA_FETCH_TIMEOUT_MS', 30_000, 'how long fetching a media URL given in `input` may take in all (`422` after)', { min: 1_000, max: 600_000 }),
};

export interface UploadSettings {
  maxBytes: number;
  ttlSeconds: number;
  fetchTimeoutMs: number;
}

export const DEFAULT_UPLOAD_SETTINGS: UploadSettings = { maxBytes: 50 * 1024 * 1024, ttlSeconds: 24 * 3600, fetchTimeoutMs: 30_000 };
