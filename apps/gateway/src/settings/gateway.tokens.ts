import type { GatewayPaymentsSettings, SettingsOf } from '@gen/config';
import type { OutputUrlSettings, StorageSettings } from '@gen/storage';
import type { WebhookDestinationPolicy } from '@gen/webhook-policy';
import type { ApiKeyCacheSettings } from './api-key-cache.settings';
import type { GATEWAY_VARIABLES } from './gateway-variables.settings';
import type { RateLimitSettings } from './rate-limit.settings';
import type { UploadSettings } from './uploads.settings';
import type { BatchSettings } from './batches.settings';

/** DI token of the gateway's DataSource (schema `auth`). */
export const AUTH_DB = Symbol('AUTH_DB');
export const GATEWAY_SETTINGS = Symbol('GATEWAY_SETTINGS');

/** The gateway's settings: one field per variable of GATEWAY_VARIABLES, and what it shares with other processes. */
export interface GatewaySettings extends SettingsOf<typeof GATEWAY_VARIABLES> {
  /** Where clients reach the API, e.g. http://localhost:3000 */
  publicBaseUrl: string;
  /** Largest accepted request body (bytes). */
  bodyLimitBytes: number;
  /** The folder the gateway serves stored outputs from under /cdn; null: none (the operator CLI). */
  outputsDir: string | null;
  /** Where outputs and uploads are (STORAGE_DRIVER...); unset: the local folder `outputsDir`. */
  storage?: StorageSettings;
  /** How /cdn answers (OUTPUT_URLS); unset: it streams the bytes. */
  outputUrls?: OutputUrlSettings;
  /** Timeout of calls to the other services (ms); POST /generate adds syncWaitMs. */
  rpcTimeoutMs: number;
  /** Which webhook destinations are accepted (the same policy the dispatcher enforces at connect time). */
  webhookPolicy: WebhookDestinationPolicy;
  /**
   * Where media URLs in `input` may be fetched from (MEDIA_FETCH_ALLOW_*, uploads.settings.ts); unset:
   * the webhook rules without their allow-list (an internal webhook host is not a media source).
   */
  mediaFetchPolicy?: WebhookDestinationPolicy;
  /** API keys in memory (API_KEY_CACHE_VARIABLES); unset: DEFAULT_API_KEY_CACHE_SETTINGS. */
  apiKeyCache?: ApiKeyCacheSettings;
  /** Rate-limit slices (RATE_LIMIT_VARIABLES); unset: DEFAULT_RATE_LIMIT_SETTINGS. */
  rateLimit?: RateLimitSettings;
  /** Uploads and fetched media URLs (UPLOAD_VARIABLES); unset: DEFAULT_UPLOAD_SETTINGS. */
  uploads?: UploadSettings;
  /** Batches' files (BATCH_VARIABLES); unset: DEFAULT_BATCH_SETTINGS. */
  batches?: BatchSettings;
  /** Base of `output_url` and of an upload's `url` (CDN_BASE_URL); unset: PUBLIC_BASE_URL/cdn. */
  cdnBaseUrl?: string;
  /** PAYMENTS_PROVIDER and the Stripe webhook's signing secret (payments/); unset: payments off. */
  payments?: GatewayPaymentsSettings;
}
