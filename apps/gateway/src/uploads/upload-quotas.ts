import type { PlanName } from '@gen/contracts';

/** What an account may upload per UTC day (uploads and media URLs fetched at submit together). */
export interface UploadQuota {
  bytes: number;
  files: number;
}

const MB = 1024 * 1024;

/**
 * The daily upload quota of each plan (docs/guide/limits.md, "Uploads per day"): part of what a plan
 * is, like its rate limits (billing's plans.ts), not a tuning setting. Free: 500 MB and 200 files a
 * day, where before a Free account could store some 720 GB a day.
 */
export const UPLOAD_QUOTAS: Record<PlanName, UploadQuota> = {
  free: { bytes: 500 * MB, files: 200 },
  lite: { bytes: 2_048 * MB, files: 1_000 },
  pro: { bytes: 20_480 * MB, files: 5_000 },
  enterprise: { bytes: 102_400 * MB, files: 25_000 },
};
