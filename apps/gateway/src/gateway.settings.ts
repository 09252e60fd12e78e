import { resolve } from 'node:path';
import {
  custom,
  EnvReader,
  flag,
  HttpLimits,
  int,
  PUBLIC_URL_VARIABLES,
  readPublicHttp,
  readServiceConfig,
  ServiceConfig,
  SettingsOf,
  STORAGE_DIR,
  text,
  unset,
} from '@gen/config';
import { readWebhookDestinationPolicy } from '@gen/webhook-policy';
import { parseWebhookSecretKey, WebhookSecretKeyRing } from './auth/webhook-secret-cipher';
import { DashboardSettings, DEFAULT_THROTTLE } from './dashboard/dashboard.settings';
import type { GatewaySettings } from './gateway.tokens';

/**
 * The gateway's own variables (README, "Configuration"; libs/config for the shared ones). Each
 * value reaches the code as the field of the same name of GatewaySettings (GATEWAY_SETTINGS):
 * a new variable is one line here.
 */
export const GATEWAY_VARIABLES = {
  syncWaitMs: int('SYNC_WAIT_MS', 30_000, 'how long `POST /generate` waits for an image model before `202`', { min: 0, max: 300_000 }),
  streamsPerAccount: int('SSE_STREAMS_PER_ACCOUNT', 20, 'live status streams one account may hold open on one gateway', { min: 1, max: 10_000 }),
  streamHeartbeatMs: int('SSE_HEARTBEAT_MS', 15_000, 'how often an idle live status stream sends a comment line', { min: 100, max: 300_000 }),
};

/** The dashboard's variables; DashboardSettings is made from them (dashboardSettings()). */
export const DASHBOARD_VARIABLES = {
  staticDir: text('DASHBOARD_DIR', 'dist/apps/dashboard', 'the built dashboard, served under `/dashboard` (`npm run build` publishes into it without emptying it)'),
  sessionTtlSeconds: int('SESSION_TTL_HOURS', 168, 'dashboard session lifetime', { min: 1, max: 24 * 90, scale: 3600 }),
  sessionIdleSeconds: int('SESSION_IDLE_MINUTES', 1440, 'dashboard session idle timeout', { min: 5, max: 60 * 24 * 90, scale: 60 }),
  signUpEnabled: flag('SIGNUP_ENABLED', true, 'whether anyone may sign up in the dashboard'),
  signUpCredits: int('SIGNUP_CREDITS', 100, 'credits a new (Free plan) account starts with', { min: 0, max: 1_000_000_000 }),
  emailLockAfter: int('SIGN_IN_LOCK_AFTER', DEFAULT_THROTTLE.email.lockAfterFailures, 'sign-in failures that lock an email', { min: 2, max: 1000 }),
  addressLockAfter: int('SIGN_IN_ADDRESS_LOCK_AFTER', DEFAULT_THROTTLE.address.lockAfterFailures, 'sign-in failures that lock a client address', { min: 2, max: 100_000 }),
  lockSeconds: int('SIGN_IN_LOCK_MINUTES', DEFAULT_THROTTLE.email.lockSeconds / 60, 'how long such a lock lasts', { min: 1, max: 24 * 60, scale: 60 }),
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
export function dashboardSettings(values: SettingsOf<typeof DASHBOARD_VARIABLES>, urls: { publicBaseUrl: string; cdnBaseUrl: string }): DashboardSettings {
  const publicOrigin = origin(urls.publicBaseUrl);
  const cdnOrigin = origin(urls.cdnBaseUrl);
  return {
    staticDir: resolve(values.staticDir),
    publicOrigin,
    secureCookies: publicOrigin.startsWith('https:'),
    sessionTtlSeconds: values.sessionTtlSeconds,
    sessionIdleSeconds: values.sessionIdleSeconds,
    signUp: { enabled: values.signUpEnabled, plan: 'free', credits: values.signUpCredits },
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
  };
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
  shared: { urls: SettingsOf<typeof PUBLIC_URL_VARIABLES>; limits: HttpLimits; rpcTimeoutMs: number; outputsDir: string; secretKeyFallback?: () => string },
): GatewayParts {
  const settings: GatewaySettings = {
    ...env.readAll(GATEWAY_VARIABLES),
    publicBaseUrl: shared.urls.publicBaseUrl,
    bodyLimitBytes: shared.limits.bodyLimitBytes,
    outputsDir: shared.outputsDir,
    rpcTimeoutMs: shared.rpcTimeoutMs,
    webhookPolicy: readWebhookDestinationPolicy(env),
  };
  const dashboard = env.readAll(DASHBOARD_VARIABLES);
  const secretKeys = readWebhookSecretKeys(env, shared.secretKeyFallback);
  // A bad URL was reported and replaced by its default: the origins below can always be made.
  return { settings, dashboard: dashboardSettings(dashboard, shared.urls), secretKeys };
}

export interface GatewayConfig extends ServiceConfig, GatewayParts {
  http: ReturnType<typeof readPublicHttp>;
}

/** Everything the distributed gateway reads (apps/gateway/src/main.ts); stops with ConfigError on a bad value. */
export function readGatewayConfig(env: EnvReader): GatewayConfig {
  const service = readServiceConfig(env);
  const http = readPublicHttp(env);
  const urls = env.readAll(PUBLIC_URL_VARIABLES);
  const parts = readGatewayParts(env, { urls, limits: http.limits, rpcTimeoutMs: service.ops.rpcTimeoutMs, outputsDir: env.read(STORAGE_DIR) });
  return { ...service, http, ...parts };
}
