/**
 * What the audit log records (docs/guide/dashboard.md, "Audit log"). Names are `<object>.<what happened>`;
 * new ones are only added, never renamed (exports and filters keep working).
 */
export const AUDIT_ACTIONS = [
  'account.created',
  'account.plan_changed',
  'account.credits_changed',
  'account.low_balance_threshold_set',
  'user.signed_up',
  'user.signed_in',
  'user.sign_in_failed',
  'user.password_changed',
  'user.password_reset',
  'user.sessions_ended',
  'key.created',
  'key.revoked',
  'key.webhook_url_set',
  'key.secret_generated',
  'key.secret_renewed',
  'key.caps_set',
  'key.webhook_scheme_set',
  'key.secret_rotated',
  'member.invited',
  'member.invitation_revoked',
  'member.joined',
  'member.removed',
  'member.role_changed',
  'account.ownership_transferred',
  'user.email_verified',
  'user.two_factor_enabled',
  'user.two_factor_disabled',
  'user.two_factor_failed',
  'user.recovery_code_used',
  'user.recovery_codes_renewed',
  'account.two_factor_required_set',
  'key.renamed',
  'key.scopes_changed',
  'account.key_defaults_set',
  'account.payment_refunded',
  'account.payment_disputed',
  'account.restricted',
  'account.restriction_lifted',
  'account.subscription_changed',
  'account.renewal_failed',
  'account.top_up_failed',
  'account.top_up_set',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who did it: a dashboard user (from their session, with the client address) or an operator with the CLI. */
export type AuditActor = { kind: 'user'; userId: string; email: string; ip: string | null } | { kind: 'operator'; name: string };

/** One entry to append. `target` names what was acted on (a key id, an email); `details` the rest. */
export interface AuditRecord {
  accountId: string;
  actor: AuditActor;
  action: AuditAction;
  target?: string | null;
  details?: Record<string, unknown>;
}

/**
 * The operator CLI's actor: the OS account running it (`USER`, else `LOGNAME`, as the shell sets
 * them; not a setting of the service), or "operator" when neither is set.
 */
export function operatorActor(env: NodeJS.ProcessEnv = process.env): AuditActor {
  const name = (env.USER ?? env.LOGNAME ?? '').trim().slice(0, 100);
  return { kind: 'operator', name: name === '' ? 'operator' : name };
}
