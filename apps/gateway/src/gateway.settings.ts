import { resolve } from 'node:path';
import {
  byMode,
  choice,
  custom,
  EnvReader,
  HttpLimits,
  int,
  OpsConfig,
  PUBLIC_URL_VARIABLES,
  readGatewayPaymentsSettings,
  readPublicHttp,
  readServiceConfig,
  ServiceConfig,
  SettingsOf,
  STORAGE_DIR,
  text,
  unset,
  url,
} from '@gen/config';
import { readOutputUrlSettings, readStorageSettings } from '@gen/storage';
import { readWebhookDestinationPolicy } from '@gen/webhook-policy';
import { DEFAULT_API_KEY_CACHE_SETTINGS } from './settings/api-key-cache.settings';
import { parseWebhookSecretKey, WebhookSecretKeyRing } from './auth/webhook-secret-cipher';
import { DEFAULT_RATE_LIMIT_SETTINGS } from './settings/rate-limit.settings';
import { DashboardSettings, DEFAULT_THROTTLE, SIGN_UP_MODES, SignUpMode } from './settings/dashboard.settings';
import type { GatewaySettings } from './settings/gateway.tokens';
import { GATEWAY_VARIABLES } from './settings/gateway-variables.settings';
import { readMediaFetchPolicy, UPLOAD_VARIABLES } from './settings/uploads.settings';
import { BATCH_VARIABLES } from './settings/batches.settings';

/** How each gateway keeps API keys in memory (ApiKeyCacheSettings; docs/design/limits.md, "API keys"). */
export const API_KEY_CACHE_VARIABLES = {
  ttlMs: int('API_KEY_CACHE_TTL_MS', DEFAULT_API_KEY_CACHE_SETTINGS.ttlMs, 'how long a gateway trusts a key read from the database (the safety net for a missed revocation broadcast)', { min: 100, max: 3_600_000 }),
  maxEntries: int('API_KEY_CACHE_MAX_ENTRIES', DEFAULT_API_KEY_CACHE_SETTINGS.maxEntries, 'API keys kept in memory per gateway', { min: 1, max: 10_000_000 }),
  negativeTtlMs: int('API_KEY_NEGATIVE_CACHE_TTL_MS', DEFAULT_API_KEY_CACHE_SETTINGS.negativeTtlMs, 'how long an unknown key id is answered 401 from memory', { min: 0, max: 3_600_000 }),
  maxNegativeEntries: int('API_KEY_NEGATIVE_CACHE_MAX_ENTRIES', DEFAULT_API_KEY_CACHE_SETTINGS.maxNegativeEntries, 'unknown key ids remembered per gateway', { min: 1, max: 10_000_000 }),
  maxConcurrentLookups: int('API_KEY_LOOKUP_CONCURRENCY', DEFAULT_API_KEY_CACHE_SETTINGS.maxConcurrentLookups, 'database reads at once for key ids not in memory', { min: 1, max: 500 }),
  lastUsedIntervalMs: int('API_KEY_LAST_USED_INTERVAL_MS', DEFAULT_API_KEY_CACHE_SETTINGS.lastUsedIntervalMs, "how often one gateway writes a key's `last_used_at`", { min: 1_000, max: 86_400_000 }),
  broadcastTimeoutMs: int('API_KEY_BROADCAST_TIMEOUT_MS', DEFAULT_API_KEY_CACHE_SETTINGS.broadcastTimeoutMs, 'how long a key change waits for its broadcast to the other gateways before answering', { min: 0, max: 60_000 }),
};

/** How a gateway takes slices of an account's rate-limit window (RateLimitSettings; docs/guide/limits.md). */
export const RATE_LIMIT_VARIABLES = {
  sliceHorizonMs: int('RATE_LIMIT_SLICE_HORIZON_MS', DEFAULT_RATE_LIMIT_SETTINGS.sliceHorizonMs, "a slice covers about this long of the gateway's recent pace", { min: 1, max: 60_000 }),
  maxSliceHits: int('RATE_LIMIT_MAX_SLICE', DEFAULT_RATE_LIMIT_SETTINGS.maxSliceHits, 'requests in one slice at most', { min: 1, max: 10_000_000 }),
  sliceShareDivisor: int('RATE_LIMIT_SLICE_SHARE', DEFAULT_RATE_LIMIT_SETTINGS.sliceShareDivisor, "beyond waiting requests, a slice takes at most 1/n of what is left of the window", { min: 1, max: 1_000 }),
  idleReturnMs: int('RATE_LIMIT_IDLE_RETURN_MS', DEFAULT_RATE_LIMIT_SETTINGS.idleReturnMs, 'an unused slice is given back after this long', { min: 10, max: 60_000 }),
  exhaustedRecheckMs: int('RATE_LIMIT_EXHAUSTED_RECHECK_MS', DEFAULT_RATE_LIMIT_SETTINGS.exhaustedRecheckMs, "after an account's window is used up, how often a gateway asks again", { min: 10, max: 60_000 }),
};

/** The dashboard's variables; DashboardSettings is made from them (dashboardSettings()). */
export const DASHBOARD_VARIABLES = {
  staticDir: text('DASHBOARD_DIR', 'dist/apps/dashboard', 'the built dashboard, served under `/dashboard` (`npm run build` publishes into it without emptying it)'),
  sourceMaps: choice('DASHBOARD_SOURCE_MAPS', ['private', 'public'] as const, 'private', "`private`: the dashboard's source maps are built and kept beside the build (for error tracking) but not served; `public`: served too"),
  sessionTtlSeconds: int('SESSION_TTL_HOURS', 168, 'dashboard session lifetime', { min: 1, max: 24 * 90, scale: 3600 }),
  sessionIdleSeconds: int('SESSION_IDLE_MINUTES', 1440, 'dashboard session idle timeout', { min: 5, max: 60 * 24 * 90, scale: 60 }),
  signUpMode: choice('SIGNUP_MODE', SIGN_UP_MODES, byMode<SignUpMode>({ standalone: 'open', distributed: 'verified' }), "who may sign up in the dashboard: `open` (anyone; the verification mail is sent but not needed to create keys), `verified` (anyone, and keys only after following the verification mail's link), `invite` (only through an invitation; the public sign-up answers `403 signup_closed`)"),
  signUpCredits: int('SIGNUP_CREDITS', byMode({ standalone: 100, distributed: 0 }), 'credits a new (Free plan) account starts with', { min: 0, max: 1_000_000_000 }),
  verificationTtlSeconds: int('EMAIL_VERIFICATION_TTL_HOURS', 48, 'how long the link of a sign-up verification mail works (single use)', { min: 1, max: 24 * 30, scale: 3600 }),
  verificationMailWindowSeconds: int('EMAIL_VERIFICATION_MAIL_WINDOW_MINUTES', 5, 'at most one verification mail per user in this many minutes (resending sooner is refused with `429`)', { min: 1, max: 24 * 60, scale: 60 }),
  emailLockAfter: int('SIGN_IN_LOCK_AFTER', DEFAULT_THROTTLE.email.lockAfterFailures, 'sign-in failures that lock an email', { min: 2, max: 1000 }),
  addressLockAfter: int('SIGN_IN_ADDRESS_LOCK_AFTER', DEFAULT_THROTTLE.address.lockAfterFailures, 'sign-in failures that lock a client address', { min: 2, max: 100_000 }),
  lockSeconds: int('SIGN_IN_LOCK_MINUTES', DEFAULT_THROTTLE.email.lockSeconds / 60, 'how long such a lock lasts', { min: 1, max: 24 * 60, scale: 60 }),
  smtpUrl: url('SMTP_URL', unset('none: standalone writes `.eml` files to `DATA_DIR/mail`; distributed logs that a mail was not sent'), 'SMTP server for the dashboard\'s mails (sign-up verification, password resets), e.g. `smtp://user:pass@mail.example.com:587`', { protocols: ['smtp:', 'smtps:'] }),
  mailFrom: text('MAIL_FROM', 'Generation Service <no-reply@localhost>', 'the From of every mail'),
  resetTtlSeconds: int('PASSWORD_RESET_TTL_MINUTES', 60, 'how long a password reset link works (single use)', { min: 5, max: 24 * 60, scale: 60 }),
  resetMailWindowSeconds: int('PASSWORD_RESET_MAIL_WINDOW_MINUTES', 15, 'at most one reset mail per address in this many minutes (more requests get the same answer, and no mail)', { min: 1, max: 24 * 60, scale: 60 }),
  invitationTtlSeconds: int('INVITATION_TTL_HOURS', 72, 'how long an invitation to join an account works (single use)', { min: 1, max: 24 * 30, scale: 3600 }),
  invitationsPerAccountPerHour: int('INVITATIONS_PER_ACCOUNT_PER_HOUR', 20, 'invitation mails one account may send per hour (more are refused with `429`)', { min: 1, max: 10_000 }),
  invitationsPerAddressPerDay: int('INVITATIONS_PER_ADDRESS_PER_DAY', 3, 'invitation mails one address may receive per day, from all accounts together (more are refused with `429`)', { min: 1, max: 1_000 }),
};

const INVALID_KEY = `must be 32 random bytes in base64 or hex, e.g. from: node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`;

/** The keys that encrypt webhook signing secrets at rest (readWebhookSecretKeys()). */
export const WEBHOOK_SECRET_VARIABLES = {
  current: custom<Buffer | null>(
    'WEBHOOK_SECRET_ENCRYPTION_KEY',
    // Required unless the caller has a key of its own (readWebhookSecretKeys' fallback).
    unset('generated in `DATA_DIR/secrets` (standalone); **required** (distributed)'),
    '32 random bytes (base64 or hex) that encrypt webhook signing secrets at rest',
    null,
    (value, problem) => {
      const key = parseWebhookSecretKey(value);
      if (!key) problem(`WEBHOOK_SECRET_ENCRYPTION_KEY ${INVALID_KEY}`);
      return key ?? undefined;
    },
  ),
  previous: custom<Buffer[]>('WEBHOOK_SECRET_ENCRYPTION_PREVIOUS_KEYS', [], 'older keys still accepted for decryption (rotation)', [], (value, problem) => {
    const keys: Buffer[] = [];
    for (const [index, item] of value.split(',').map((part) => part.trim()).filter((part) => part.length > 0).entries()) {
      const key = parseWebhookSecretKey(item);
      if (key) keys.push(key);
      else problem(`WEBHOOK_SECRET_ENCRYPTION_PREVIOUS_KEYS: entry ${index + 1} ${INVALID_KEY}`);
    }
    return keys;
  }),
};

/**
 * WEBHOOK_SECRET_ENCRYPTION_KEY and, during a rotation, WEBHOOK_SECRET_ENCRYPTION_PREVIOUS_KEYS.
 * `fallback` supplies a key when the variable is unset (standalone keeps one in its data folder);
 * without one the variable is required.
 */
export function readWebhookSecretKeys(env: EnvReader, fallback?: () => string): WebhookSecretKeyRing {
  const keys = env.readAll(WEBHOOK_SECRET_VARIABLES);
  let current = keys.current;
  if (env.text(WEBHOOK_SECRET_VARIABLES.current.name) === undefined) {
    const text = fallback?.();
    if (text === undefined) env.problem(`WEBHOOK_SECRET_ENCRYPTION_KEY is required (it encrypts webhook signing secrets at rest); it ${INVALID_KEY}`);
    else {
      current = parseWebhookSecretKey(text);
      if (!current) env.problem(`WEBHOOK_SECRET_ENCRYPTION_KEY ${INVALID_KEY}`);
    }
  }
  return { current: current ?? Buffer.alloc(32), previous: keys.previous };
}

function origin(url: string): string {
  return new URL(url).origin;
}

/** The dashboard's settings from its variables and the public and content URLs. */
export function dashboardSettings(
  values: SettingsOf<typeof DASHBOARD_VARIABLES>,
  urls: { publicBaseUrl: string; cdnBaseUrl: string },
  mailDir: string | null = null,
): DashboardSettings {
  const publicOrigin = origin(urls.publicBaseUrl);
  const cdnOrigin = origin(urls.cdnBaseUrl);
  return {
    staticDir: resolve(values.staticDir),
    publicSourceMaps: values.sourceMaps === 'public',
    publicOrigin,
    secureCookies: publicOrigin.startsWith('https:'),
    sessionTtlSeconds: values.sessionTtlSeconds,
    sessionIdleSeconds: values.sessionIdleSeconds,
    signUp: { mode: values.signUpMode, plan: 'free', credits: values.signUpCredits },
    // Delays start after 3 failures per email (10 per address), or fewer when the lock comes sooner.
    throttle: {
      email: {
        ...DEFAULT_THROTTLE.email,
        lockAfterFailures: values.emailLockAfter,
        lockSeconds: values.lockSeconds,
        freeFailures: Math.min(DEFAULT_THROTTLE.email.freeFailures, values.emailLockAfter - 1),
      },
      address: {
        ...DEFAULT_THROTTLE.address,
        lockAfterFailures: values.addressLockAfter,
        lockSeconds: values.lockSeconds,
        freeFailures: Math.min(DEFAULT_THROTTLE.address.freeFailures, values.addressLockAfter - 1),
      },
      signUp: DEFAULT_THROTTLE.signUp,
    },
    contentOrigins: cdnOrigin === publicOrigin ? [] : [cdnOrigin],
    mail: { smtpUrl: values.smtpUrl, from: values.mailFrom, dir: values.smtpUrl ? null : mailDir },
    passwordReset: { ttlSeconds: values.resetTtlSeconds, mailWindowSeconds: values.resetMailWindowSeconds },
    invitations: { ttlSeconds: values.invitationTtlSeconds, perAccountPerHour: values.invitationsPerAccountPerHour, perAddressPerDay: values.invitationsPerAddressPerDay },
    emailVerification: { ttlSeconds: values.verificationTtlSeconds, mailWindowSeconds: values.verificationMailWindowSeconds },
  };
}

/** Webhook destinations and media fetches: two policies, the second with the first's ports. */
function destinationPolicies(env: EnvReader): Pick<GatewaySettings, 'webhookPolicy' | 'mediaFetchPolicy'> {
  const webhookPolicy = readWebhookDestinationPolicy(env);
  return { webhookPolicy, mediaFetchPolicy: readMediaFetchPolicy(env, webhookPolicy) };
}

/** What the gateway module takes, in standalone and distributed mode alike. */
export interface GatewayParts {
  settings: GatewaySettings;
  dashboard: DashboardSettings;
  secretKeys: WebhookSecretKeyRing;
}

/**
 * The gateway's own variables and the webhook rules, given what the caller read already (the
 * public URLs, HTTP limits, RPC timeout, outputs folder). Standalone calls it too.
 */
export function readGatewayParts(
  env: EnvReader,
  shared: {
    urls: SettingsOf<typeof PUBLIC_URL_VARIABLES>;
    limits: HttpLimits;
    rpcTimeoutMs: number;
    outputsDir: string;
    secretKeyFallback?: () => string;
    /** Where mails go as `.eml` files without SMTP_URL (standalone: DATA_DIR/mail). */
    mailDir?: string;
  },
): GatewayParts {
  const storage = readStorageSettings(env, shared.outputsDir);
  const settings: GatewaySettings = {
    ...env.readAll(GATEWAY_VARIABLES),
    storage,
    outputUrls: readOutputUrlSettings(env, storage),
    publicBaseUrl: shared.urls.publicBaseUrl,
    bodyLimitBytes: shared.limits.bodyLimitBytes,
    outputsDir: shared.outputsDir,
    rpcTimeoutMs: shared.rpcTimeoutMs,
    // Read here, in this order: the README's configuration table follows the order variables are read.
    ...destinationPolicies(env),
    apiKeyCache: env.readAll(API_KEY_CACHE_VARIABLES),
    rateLimit: env.readAll(RATE_LIMIT_VARIABLES),
    uploads: env.readAll(UPLOAD_VARIABLES),
    batches: env.readAll(BATCH_VARIABLES),
    cdnBaseUrl: shared.urls.cdnBaseUrl,
    payments: readGatewayPaymentsSettings(env),
  };
  const dashboard = env.readAll(DASHBOARD_VARIABLES);
  // SIGNUP_MODE replaced SIGNUP_ENABLED; ignoring a `false` left from before would open a sign-up
  // the deployment had closed, so it stops unless the mode says `invite` too (a `true` is harmless).
  if (env.text('SIGNUP_ENABLED') === 'false' && dashboard.signUpMode !== 'invite') {
    env.problem('SIGNUP_ENABLED=false closed sign-up, but SIGNUP_MODE replaced it: set SIGNUP_MODE=invite (and remove SIGNUP_ENABLED)');
  }
  const secretKeys = readWebhookSecretKeys(env, shared.secretKeyFallback);
  // A bad URL was reported and replaced by its default: the origins below can always be made.
  return { settings, dashboard: dashboardSettings(dashboard, shared.urls, shared.mailDir ?? null), secretKeys };
}

export interface GatewayConfig extends ServiceConfig, GatewayParts {
  http: ReturnType<typeof readPublicHttp>;
}

/** Everything the distributed gateway reads; stops with ConfigError on a bad value. */
export function readGatewayConfig(env: EnvReader): GatewayConfig {
  const service = readServiceConfig(env);
  return { ...service, ...readGatewaySettings(env, service.ops) };
}

/** What the gateway reads beyond every service's config (apps/gateway/src/main.ts): its public HTTP, settings, dashboard and keys. */
export function readGatewaySettings(env: EnvReader, ops: OpsConfig): Omit<GatewayConfig, keyof ServiceConfig> {
  const http = readPublicHttp(env);
  const urls = env.readAll(PUBLIC_URL_VARIABLES);
  const parts = readGatewayParts(env, { urls, limits: http.limits, rpcTimeoutMs: ops.rpcTimeoutMs, outputsDir: env.read(STORAGE_DIR) });
  return { http, ...parts };
}
