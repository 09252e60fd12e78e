import type { PlanName } from '@gen/contracts';

export const DASHBOARD_SETTINGS = Symbol('DASHBOARD_SETTINGS');

/** SIGNUP_MODE (docs/guide/dashboard.md, "Sign-up"). */
export const SIGN_UP_MODES = ['open', 'verified', 'invite'] as const;
export type SignUpMode = (typeof SIGN_UP_MODES)[number];

/** The dashboard's settings, made from DASHBOARD_VARIABLES (gateway.settings.ts) at start-up. */
export interface DashboardSettings {
  /** Folder of the built dashboard (index.html, assets/); served under /dashboard. */
  staticDir: string;
  /** Serve the build's `.map` files (DASHBOARD_SOURCE_MAPS=public); by default they stay on disk, unpublished. */
  publicSourceMaps: boolean;
  /** Origin of PUBLIC_BASE_URL: state-changing calls must come from it (or from the request's own origin). */
  publicOrigin: string;
  /** Cookies get `Secure` (and `__Host-` names) when the public URL is https. */
  secureCookies: boolean;
  sessionTtlSeconds: number;
  sessionIdleSeconds: number;
  /** `open`: anyone, verification optional; `verified`: keys only once the email is verified; `invite`: no public sign-up. */
  signUp: { mode: SignUpMode; plan: PlanName; credits: number };
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
  /** Where the dashboard's mails go (password resets): SMTP, or `.eml` files in a folder (standalone without SMTP). */
  mail: MailSettings;
  /** How long a password reset link works, and the least time between two reset mails to one address. */
  passwordReset: { ttlSeconds: number; mailWindowSeconds: number };
  /**
   * How long an invitation to join an account works (INVITATION_TTL_HOURS, 72), and how many mails an
   * account may send per hour and an address receive per day (INVITATIONS_PER_*).
   */
  invitations: { ttlSeconds: number; perAccountPerHour: number; perAddressPerDay: number };
  /** How long a sign-up verification link works, and the least time between two verification mails to one user. */
  emailVerification: { ttlSeconds: number; mailWindowSeconds: number };
}

export interface MailSettings {
  /** SMTP_URL (`smtp://user:pass@host:587`, `smtps://...`); null: none. */
  smtpUrl: string | null;
  /** MAIL_FROM, the From of every mail. */
  from: string;
  /** Without SMTP: the folder mails are written to as `.eml` files (standalone: DATA_DIR/mail); null: not sent, logged. */
  dir: string | null;
}

export const DEFAULT_THROTTLE: DashboardSettings['throttle'] = {
  email: { freeFailures: 3, baseDelaySeconds: 1, maxDelaySeconds: 30, lockAfterFailures: 10, lockSeconds: 900, windowSeconds: 900 },
  address: { freeFailures: 10, baseDelaySeconds: 1, maxDelaySeconds: 30, lockAfterFailures: 50, lockSeconds: 900, windowSeconds: 900 },
  signUp: { freeFailures: 10, baseDelaySeconds: 2, maxDelaySeconds: 60, lockAfterFailures: 30, lockSeconds: 3600, windowSeconds: 3600 },
};

/**
 * How password guesses are throttled, per email and per client address (sessions/sign-in-throttle.ts
 * applies it):
 *
 * - The first `freeFailures` failures cost nothing.
 * - After that, each attempt must wait `baseDelaySeconds * 2^(failures - freeFailures)` (capped at
 *   `maxDelaySeconds`) after the previous one: an early attempt is refused with a Retry-After.
 * - `lockAfterFailures` failures lock the email (or address) for `lockSeconds`.
 * - Failures older than `windowSeconds` are forgotten.
 *
 * An attempt counts as a failure from the moment it is allowed (so parallel guesses cannot slip past
 * the limit while their passwords are being checked); a success takes it back.
 */
export interface ThrottlePolicy {
  freeFailures: number;
  baseDelaySeconds: number;
  maxDelaySeconds: number;
  lockAfterFailures: number;
  lockSeconds: number;
  windowSeconds: number;
}
