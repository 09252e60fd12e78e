import { byMode, EnvReader, flag, int, list } from '@gen/config';
import { parseAllowList, WebhookDestinationPolicy } from '@gen/webhook-policy';

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

/**
 * Where media URLs given in `input` may be fetched from (docs/guide/uploads.md, "Media URLs"): rules of
 * their own, not the webhook allow-list, so an operator who allows an internal webhook receiver does
 * not let every customer fetch from it. The ports are the webhooks' (WEBHOOK_ALLOWED_PORTS: the same
 * egress). Distributed: https to public addresses only, unless set.
 */
export const MEDIA_FETCH_VARIABLES = {
  allowHttp: flag('MEDIA_FETCH_ALLOW_HTTP', byMode({ standalone: true, distributed: false }), 'allow `http://` media URLs in `input`'),
  allowPrivate: flag('MEDIA_FETCH_ALLOW_PRIVATE_NETWORKS', byMode({ standalone: true, distributed: false }), 'allow media URLs on loopback/private addresses'),
  allowList: list('MEDIA_FETCH_ALLOW_LIST', 'CIDRs or host names media URLs may always be fetched from (separate from `WEBHOOK_ALLOW_LIST`)', (entries) => parseAllowList(entries)),
};

/** The media fetch policy: MEDIA_FETCH_ALLOW_* with the webhooks' allowed ports. */
export function readMediaFetchPolicy(env: EnvReader, webhookPolicy: WebhookDestinationPolicy): WebhookDestinationPolicy {
  return { ...env.readAll(MEDIA_FETCH_VARIABLES), ports: webhookPolicy.ports };
}
