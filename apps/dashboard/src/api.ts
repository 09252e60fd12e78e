/** The dashboard's JSON API (/dashboard/api, same error envelope as the public API). */
import type { GenerationOutput, GenerationRecord, KeyCapView, LedgerEntryView, LedgerReply, MemberRole, ModelInfo, PlanName, UsageReply, WebhookDeliveryView } from '@gen/contracts';
import { api, uploadFile } from './api-client';

export { ApiError, api, onUnauthorized, setCsrfToken, uploadFile } from './api-client';

// Types and value lists come from the one contracts lib the services use (erased or inlined by Vite).
export { GENERATION_TYPES, JOB_STATUSES } from '@gen/contracts';
export type { GenerationOutput, GenerationType, InputProperty, InputsSchema as InputSchema, JobStatus, LedgerKind, ModelInfo, PlanName, UsageDay, UsageReply } from '@gen/contracts';
export type Scope = 'generate' | 'read';

export { MEMBER_ROLES, roleAtLeast, canManageRole } from '@gen/contracts';
export type { MemberRole } from '@gen/contracts';

/** An account the user belongs to, with their role there. */
export interface AccountChoice {
  id: string;
  name: string;
  role: MemberRole;
}

export interface Session {
  signed_in: boolean;
  csrf_token: string;
  user?: { id: string; email: string; email_verified: boolean; two_factor: { enabled: boolean; required: boolean } };
  account?: AccountChoice;
  accounts?: AccountChoice[];
  sign_up?: { enabled: boolean; mode: 'open' | 'verified' | 'invite'; credits: number; verification_required: boolean };
}

export interface Member {
  user_id: string;
  email: string;
  role: MemberRole;
  joined_at: string;
  last_sign_in_at: string | null;
  you: boolean;
}

export interface Invitation {
  id: string;
  email: string;
  role: MemberRole;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  expired: boolean;
}

export interface InvitationPreview {
  account: { id: string; name: string };
  email: string;
  role: MemberRole;
  invited_by: string | null;
  expires_at: string;
  has_user: boolean;
}

/**
 * A generation as the dashboard API returns it: the public API's record, with the input as applied,
 * the customer's metadata and every output (absent from records made before they existed).
 */
export type Generation = GenerationRecord & {
  input?: Record<string, unknown> | null;
  metadata?: Record<string, string> | null;
  outputs?: GenerationOutput[] | null;
};

/** A catalogue model as the account sees it, with its input schema and how its price is computed. */
export type Model = ModelInfo;

export interface Overview {
  account: { id: string; name: string; email: string };
  plan: string;
  limits: { requests_per_minute: number; parallel_tasks: number };
  credits: { available: number; held: number };
  active_keys: number;
  recent_generations: Generation[];
}

export interface GenerationPage {
  data: Generation[];
  next_cursor: string | null;
}

/** One attempt of a delivery. */
export type { WebhookAttemptView as DeliveryAttempt } from '@gen/contracts';

/** A webhook delivery with its attempts (the webhooks service's delivery log). */
export type Delivery = WebhookDeliveryView;

/** The catalogue as the account sees it, with its plan and credits. */
export interface ModelsPage {
  plan: PlanName;
  credits: { available: number; held: number };
  data: Model[];
}

export type LedgerEntry = LedgerEntryView;
export type LedgerPage = LedgerReply;

/** The low-balance alert (Settings, Account): threshold (null: off), balance, alerted now, latest deliveries. */
export interface LowBalance {
  threshold: number | null;
  available: number;
  below: boolean;
  deliveries: Delivery[];
}

export interface SessionView {
  id: string;
  current: boolean;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  ip: string | null;
  user_agent: string | null;
}

export interface GenerationDetail {
  generation: Generation;
  deliveries: { available: boolean; message: string | null; data: Delivery[] };
}

export interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  last4: string;
  scopes: Scope[];
  status: 'active' | 'revoked';
  webhook_url: string | null;
  has_webhook_secret: boolean;
  /** How its webhooks are signed: `service` (X-Service-* headers) or `standard` (Standard Webhooks). */
  webhook_scheme: WebhookScheme;
  /** During a rotation's overlap: until when the previous secret still signs too. */
  previous_secret_until: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Spending caps and spend (listed keys; a key just created or changed has none until the list is read again). */
  caps?: KeyCaps;
}

export type WebhookScheme = 'service' | 'standard';

/** A key's spending caps per UTC day and month (null: none) and what it has spent. */
export type KeyCaps = Omit<KeyCapView, 'key_id'>;

export interface KeyChange {
  key: ApiKey;
  webhook_secret: string | null;
}

export interface CreatedKey extends KeyChange {
  api_key: string;
}

/** What the playground submits: POST /api/v1/generate's body. */
export interface GenerateBody {
  model: string;
  prompt: string;
  type: string;
  input?: Record<string, unknown>;
}

export const dashboardApi = {
  session: () => api<Session>('GET', '/session'),
  signIn: (email: string, password: string) => api<Session>('POST', '/sign-in', { email, password }),
  signUp: (email: string, password: string) => api<Session>('POST', '/sign-up', { email, password }),
  signOut: () => api<void>('POST', '/sign-out'),
  requestPasswordReset: (email: string) => api<{ message: string }>('POST', '/password-reset', { email }),
  completePasswordReset: (token: string, newPassword: string) =>
    api<{ ended_sessions: number }>('POST', '/password-reset/complete', { token, new_password: newPassword }),
  overview: () => api<Overview>('GET', '/overview'),
  generations: (query: { status?: string; type?: string; cursor?: string; limit?: number }) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
    const search = params.toString();
    return api<GenerationPage>('GET', `/generations${search ? `?${search}` : ''}`);
  },
  generation: (id: string) => api<GenerationDetail>('GET', `/generations/${encodeURIComponent(id)}`),
  redeliver: (id: string) => api<Delivery>('POST', `/generations/${encodeURIComponent(id)}/redeliver`),
  cancelGeneration: (id: string) => api<Generation>('POST', `/generations/${encodeURIComponent(id)}/cancel`),
  keys: () => api<{ data: ApiKey[] }>('GET', '/keys'),
  createKey: (input: { name: string; scopes: Scope[]; webhook_url: string | null }) => api<CreatedKey>('POST', '/keys', input),
  updateKey: (id: string, webhookUrl: string | null) => api<KeyChange>('PATCH', `/keys/${id}`, { webhook_url: webhookUrl }),
  renewSecret: (id: string) => api<KeyChange>('POST', `/keys/${id}/webhook-secret`),
  /** A standard key's rotation: both secrets sign for `overlapSeconds`, then only the new one. */
  rotateSecret: (id: string, overlapSeconds: number) => api<KeyChange>('POST', `/keys/${id}/webhook-secret`, { overlap_seconds: overlapSeconds }),
  setWebhookScheme: (id: string, scheme: WebhookScheme) => api<ApiKey>('PUT', `/keys/${id}/webhook-scheme`, { scheme }),
  revokeKey: (id: string) => api<void>('DELETE', `/keys/${id}`),
  relabelKey: (id: string, change: { name?: string; scopes?: Scope[] }) => api<ApiKey>('PUT', `/keys/${id}/label`, change),
  setKeyCaps: (id: string, caps: { per_day: number | null; per_month: number | null }) => api<KeyCapView>('PUT', `/keys/${id}/caps`, caps),
  models: () => api<ModelsPage>('GET', '/models'),
  /** The playground: POST /api/v1/generate with one of the account's keys; `attempt` makes a retry safe (Idempotency-Key). */
  generate: (keyId: string, input: GenerateBody, attempt: string) =>
    api<Generation>('POST', `/keys/${keyId}/generate`, input, { 'idempotency-key': attempt }),
  /** Uploads a file for a media input as the key (POST /api/v1/uploads for the account); answers its URL among the rest. */
  upload: (keyId: string, file: File) => uploadFile<{ id: string; url: string; expires_at: string }>(`/keys/${keyId}/uploads`, file),
  ledger: (cursor?: string) => api<LedgerPage>('GET', `/usage/ledger?limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
  usage: (days = 30) => api<UsageReply>('GET', `/usage/summary?days=${days}`),
  sendTestEvent: (keyId: string, url: string | null) => api<Delivery>('POST', `/keys/${keyId}/test-events`, url ? { url } : {}),
  testEvents: (keyId: string) => api<{ data: Delivery[] }>('GET', `/keys/${keyId}/test-events`),
  sessions: () => api<{ data: SessionView[] }>('GET', '/account/sessions'),
  audit: (query: { actor?: string; action?: string; cursor?: string; limit?: number }) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
    return api<AuditPageData>('GET', `/audit?${params.toString()}`);
  },
  endSession: (id: string) => api<void>('DELETE', `/account/sessions/${id}`),
  endOtherSessions: () => api<{ ended_sessions: number }>('DELETE', '/account/sessions'),
  lowBalance: () => api<LowBalance>('GET', '/account/low-balance'),
  setLowBalance: (threshold: number | null) => api<Omit<LowBalance, 'deliveries'>>('PUT', '/account/low-balance', { threshold }),
  switchAccount: (accountId: string) => api<Session>('PUT', '/session/account', { account_id: accountId }),
  members: () => api<{ data: Member[]; invitations: Invitation[] }>('GET', '/members'),
  invite: (email: string, role: MemberRole) => api<{ mailed: boolean }>('POST', '/members/invitations', { email, role }),
  withdrawInvitation: (id: string) => api<void>('DELETE', `/members/invitations/${id}`),
  changeRole: (userId: string, role: MemberRole) => api<void>('PUT', `/members/${userId}/role`, { role }),
  removeMember: (userId: string) => api<{ ended_sessions: number }>('DELETE', `/members/${userId}`),
  transferOwnership: (userId: string) => api<void>('POST', '/members/transfer-ownership', { user_id: userId }),
  previewInvitation: (token: string) => api<InvitationPreview>('POST', '/invitations/preview', { token }),
  acceptInvitation: (token: string) => api<Session>('POST', '/invitations/accept', { token }),
  acceptInvitationSignIn: (token: string, email: string, password: string) => api<Session>('POST', '/invitations/accept-sign-in', { token, email, password }),
  acceptInvitationSignUp: (token: string, password: string) => api<Session>('POST', '/invitations/accept-sign-up', { token, password }),
  changePassword: (currentPassword: string, newPassword: string) =>
    api<{ ended_sessions: number }>('POST', '/account/password', { current_password: currentPassword, new_password: newPassword }),
};

/** An audit log entry (Settings, Audit log). */
export interface AuditEntry {
  id: string;
  at: string;
  actor_kind: 'user' | 'operator';
  actor: string;
  ip: string | null;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
}

export interface AuditPageData {
  data: AuditEntry[];
  next_cursor: string | null;
  actions: string[];
  actors: string[];
}

/** Where the CSV export of the audit log downloads from (with the page's filters as its query). */
export const AUDIT_CSV_URL = '/dashboard/api/audit/entries.csv';

/** Where the CSV export of the ledger downloads from (a plain link: the browser sends the session cookie). */
export const LEDGER_CSV_URL = '/dashboard/api/usage/ledger.csv';
