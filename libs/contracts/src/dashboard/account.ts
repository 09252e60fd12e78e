import type { MemberRole } from '../shared/member-roles';
import type { LowBalanceView } from '../messages/billing.replies';
import type { WebhookDeliveryView } from '../messages/webhooks.replies';

/** An account the user belongs to, with their role there (docs/guide/dashboard.md, "Members and roles"). */
export interface AccountChoice {
  id: string;
  name: string;
  role: MemberRole;
}

/** Who may sign up (SIGNUP_MODE). */
export type SignUpMode = 'open' | 'verified' | 'invite';

/** GET /dashboard/api/session, and what signing in, up or switching account answers. */
export interface SessionReply {
  signed_in: boolean;
  /** Send it back as X-CSRF-Token on every POST, PATCH and DELETE. */
  csrf_token: string;
  /** `email_verified`: the verification link was followed; `two_factor`: on for the user, and whether the account requires it. */
  user?: { id: string; email: string; email_verified: boolean; two_factor: { enabled: boolean; required: boolean } };
  /** The account the session works on, and the user's role there. */
  account?: AccountChoice;
  /** Every account the user belongs to (the account picker); PUT /session/account switches. */
  accounts?: AccountChoice[];
  /**
   * For the sign-up page, when signed out: whether it is open (SIGNUP_MODE, `invite`: closed), the
   * credits a new account starts with, and whether keys wait for the verification mail.
   */
  sign_up?: { enabled: boolean; mode: SignUpMode; credits: number; verification_required: boolean };
}

/** A signed-in session of the user (Settings, Account). */
export interface SessionView {
  id: string;
  current: boolean;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ip: string | null;
  user_agent: string | null;
}

export interface MemberView {
  user_id: string;
  email: string;
  role: MemberRole;
  joined_at: string;
  last_sign_in_at: string | null;
  you: boolean;
}

export interface InvitationView {
  id: string;
  email: string;
  role: MemberRole;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  expired: boolean;
}

/** GET /dashboard/api/members. */
export interface MembersReply {
  data: MemberView[];
  /** Invitations not yet accepted; listed to owners and admins only (empty for the others). */
  invitations: InvitationView[];
}

/** What an invitation link shows before it is accepted. */
export interface InvitationPreviewReply {
  account: { id: string; name: string };
  email: string;
  role: MemberRole;
  invited_by: string | null;
  expires_at: string;
  /** Whether the address has a dashboard user: accept by signing in (true) or by choosing a password (false). */
  has_user: boolean;
}

/** An audit log entry (Settings, Audit log). */
export interface AuditEntryReply {
  id: string;
  at: string;
  actor_kind: 'user' | 'operator';
  actor: string;
  ip: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

/** GET /dashboard/api/audit: a page of entries, and for the filters every action and the account's actors. */
export interface AuditPageReply {
  data: AuditEntryReply[];
  next_cursor: string | null;
  actions: readonly string[];
  actors: string[];
}

/** The low-balance alert (Settings, Account): threshold (null: off), balance, alerted now, and the latest `account.low_balance` deliveries, newest first. */
export interface LowBalanceReply extends LowBalanceView {
  deliveries: WebhookDeliveryView[];
}

/** POST /dashboard/api/sign-in when the password was right: sign-in ends with a code from the app (or a recovery code). */
export interface TwoFactorChallengeReply {
  signed_in: false;
  two_factor_required: true;
  challenge: string;
  expires_in_seconds: number;
}

/** GET /dashboard/api/two-factor: the user's two-factor sign-in. */
export interface TwoFactorStatus {
  enabled: boolean;
  /** The account requires it of every member. */
  required: boolean;
  recovery_codes_left: number;
}
