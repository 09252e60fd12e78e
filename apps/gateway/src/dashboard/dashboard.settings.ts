import { resolve } from 'node:path';
import type { PlanName } from '@gen/contracts';
import type { EnvReader } from '@gen/config';
import { parseAllowList, WebhookDestinationPolicy } from '@gen/webhook-policy';
import { parseWebhookSecretKey, WebhookSecretKeyRing } from '../auth/webhook-secret-cipher';
import type { ThrottlePolicy } from './sessions/sign-in-throttle';

export const DASHBOARD_SETTINGS = Symbol('DASHBOARD_SETTINGS');

/** The dashboard's settings (README, "Configuration"); read once at start-up. */
export interface DashboardSettings {
  /** Folder of the built dashboard (index.html, assets/); served under /dashboard. */
  staticDir: string;
  /** Origin of PUBLIC_BASE_URL: state-changing calls must come from it (or from the request's own origin). */
  publicOrigin: string;
  /** Cookies get `Secure` (and `__Host-` names) when the public URL is https. */
  secureCookies: boolean;
  sessionTtlSeconds: number;
  sessionIdleSeconds: number;
  signUp: { enabled: boolean; plan: PlanName; credits: number };
  throttle: {
    /** Sign-in failures per email. */
    email: ThrottlePolicy;
    /** Sign-in failures per client address (higher: offices share addresses). */
    address: ThrottlePolicy;
    /** Sign-ups per client address (every sign-up counts: free credits and email probing). */
    signUp: ThrottlePolicy;
  };
  /** Origins outputs are served from (CDN_BASE_URL), allowed for images and media by the pages' CSP. */
  contentOrigins: string[];
}

export const DEFAULT_THROTTLE: DashboardSettings['throttle'] = {
  email: { freeFailures: 3, baseDelaySeconds: 1, maxDelaySeconds: 30, lockAfterFailures: 10, lockSeconds: 900, windowSeconds: 900 },
  address: { freeFailures: 10, baseDelaySeconds: 1, maxDelaySeconds: 30, lockAfterFailures: 50, lockSeconds: 900, windowSeconds: 900 },
  signUp: { freeFailures: 10, baseDelaySeconds: 2, maxDelaySeconds: 60, lockAfterFailures: 30, lockSeconds: 3600, windowSeconds: 3600 },
};

/**
 * SIGN_IN_LOCK_AFTER (failures per email, default 10), SIGN_IN_ADDRESS_LOCK_AFTER (per client
 * address, default 50) and SIGN_IN_LOCK_MINUTES (default 15). Delays start after 3 failures per
 * email (10 per address, or fewer when the lock comes sooner).
 */
function readThrottle(env: EnvReader): DashboardSettings['throttle'] {
  const emailLock = env.int('SIGN_IN_LOCK_AFTER', DEFAULT_THROTTLE.email.lockAfterFailures, { min: 2, max: 1000 });
  const addressLock = env.int('SIGN_IN_ADDRESS_LOCK_AFTER', DEFAULT_THROTTLE.address.lockAfterFailures, { min: 2, max: 100_000 });
  const lockSeconds = env.int('SIGN_IN_LOCK_MINUTES', DEFAULT_THROTTLE.email.lockSeconds / 60, { min: 1, max: 24 * 60 }) * 60;
  return {
    email: {
      ...DEFAULT_THROTTLE.email,
      lockAfterFailures: emailLock,
      lockSeconds,
      freeFailures: Math.min(DEFAULT_THROTTLE.email.freeFailures, emailLock - 1),
    },
    address: {
      ...DEFAULT_THROTTLE.address,
      lockAfterFailures: addressLock,
      lockSeconds,
      freeFailures: Math.min(DEFAULT_THROTTLE.address.freeFailures, addressLock - 1),
    },
    signUp: DEFAULT_THROTTLE.signUp,
  };
}

function origin(url: string): string {
  return new URL(url).origin;
}

/** Reads the dashboard's variables; `base` carries the public and content URLs the caller already read. */
export function readDashboardSettings(env: EnvReader, base: { publicBaseUrl: string; cdnBaseUrl: string }): DashboardSettings {
  const publicOrigin = origin(base.publicBaseUrl);
  const cdnOrigin = origin(base.cdnBaseUrl);
  return {
    staticDir: resolve(env.string('DASHBOARD_DIR', 'dist/apps/dashboard')),
    publicOrigin,
    secureCookies: publicOrigin.startsWith('https:'),
    sessionTtlSeconds: env.int('SESSION_TTL_HOURS', 168, { min: 1, max: 24 * 90 }) * 3600,
    sessionIdleSeconds: env.int('SESSION_IDLE_MINUTES', 1440, { min: 5, max: 60 * 24 * 90 }) * 60,
    signUp: {
      enabled: env.bool('SIGNUP_ENABLED', true),
      plan: 'free',
      credits: env.int('SIGNUP_CREDITS', 100, { min: 0, max: 1_000_000_000 }),
    },
    throttle: readThrottle(env),
    contentOrigins: cdnOrigin === publicOrigin ? [] : [cdnOrigin],
  };
}

/**
 * WEBHOOK_SECRET_ENCRYPTION_KEY (32 bytes, base64 or hex) and, during a rotation,
 * WEBHOOK_SECRET_ENCRYPTION_PREVIOUS_KEYS (comma-separated). `fallback` supplies a key when the
 * variable is unset (standalone keeps one in its data folder); without one the variable is required.
 */
export function readWebhookSecretKeys(env: EnvReader, fallback?: () => string): WebhookSecretKeyRing {
  const name = 'WEBHOOK_SECRET_ENCRYPTION_KEY';
  const text = env.optionalString(name) ?? fallback?.();
  const invalid = `must be 32 random bytes in base64 or hex, e.g. from: node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`;
  let current: Buffer = Buffer.alloc(32);
  if (text === undefined) env.problem(`${name} is required (it encrypts webhook signing secrets at rest); it ${invalid}`);
  else {
    const parsed = parseWebhookSecretKey(text);
    if (parsed) current = parsed;
    else env.problem(`${name} ${invalid}`);
  }
  const previous: Buffer[] = [];
  for (const [index, item] of env.list('WEBHOOK_SECRET_ENCRYPTION_PREVIOUS_KEYS').entries()) {
    const parsed = parseWebhookSecretKey(item);
    if (parsed) previous.push(parsed);
    else env.problem(`WEBHOOK_SECRET_ENCRYPTION_PREVIOUS_KEYS: entry ${index + 1} ${invalid}`);
  }
  return { current, previous };
}

/**
 * The webhook destination rules of this deployment, from the variables the webhooks service reads
 * (WEBHOOK_ALLOW_HTTP, WEBHOOK_ALLOW_PRIVATE_NETWORKS, WEBHOOK_ALLOW_LIST), so the dashboard accepts
 * exactly the URLs that will be delivered to.
 */
/** A distributed deployment's webhook rules when nothing is set: https to public addresses only. */
export const DISTRIBUTED_WEBHOOK_POLICY_DEFAULTS = { allowHttp: false, allowPrivate: false } as const;

export function readWebhookPolicy(env: EnvReader, defaults: { allowHttp: boolean; allowPrivate: boolean }): WebhookDestinationPolicy {
  const policy = {
    allowHttp: env.bool('WEBHOOK_ALLOW_HTTP', defaults.allowHttp),
    allowPrivate: env.bool('WEBHOOK_ALLOW_PRIVATE_NETWORKS', defaults.allowPrivate),
    allowList: env.list('WEBHOOK_ALLOW_LIST'),
  };
  try {
    parseAllowList(policy.allowList);
  } catch (error) {
    env.problem(`WEBHOOK_ALLOW_LIST: ${error instanceof Error ? error.message : String(error)}`);
  }
  return policy;
}
