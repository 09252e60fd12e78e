/** The dashboard's JSON API (/dashboard/api, same error envelope as the public API). */
import type {
  AccountChoice as ContractAccountChoice,
  ApiKeyScope,
  AuditEntryReply,
  AuditPageReply,
  BatchView,
  CheckoutReply,
  CreatedKeyReply,
  GenerateRequestBody,
  GenerationDetailReply,
  GenerationRecord,
  InvitationPreviewReply,
  InvitationView,
  KeyCapView,
  KeyCaps as ContractKeyCaps,
  KeyChangeReply,
  KeyView,
  LedgerEntryView,
  LedgerReply,
  ListBatchesReply,
  ListGenerationsReply,
  ListInvoicesReply,
  ListPurchasesReply,
  LowBalanceReply,
  MemberRole,
  MembersReply,
  MemberView,
  ModelInfo,
  ModelsReply,
  OverviewReply,
  PaymentsOverview,
  PlanName as ContractPlanName,
  PortalReply,
  PurchaseView,
  SessionReply,
  SubscribeReply,
  TopUpView,
  SessionView as ContractSessionView,
  UploadReply,
  UsageReply,
  WebhookDeliveryView,
  WebhookScheme as ContractWebhookScheme,
} from '@gen/contracts';
import { api, uploadFile } from './api-client';

export { ApiError, api, onUnauthorized, setCsrfToken, uploadFile } from './api-client';

// Types and value lists come from the one contracts lib the services use (erased or inlined by Vite);
// the dashboard API's shapes are libs/contracts/src/dashboard, which the gateway answers with.
export { GENERATION_TYPES, JOB_STATUSES } from '@gen/contracts';
export type { GenerationOutput, GenerationType, InputProperty, InputsSchema as InputSchema, JobStatus, LedgerKind, ModelInfo, PlanName, UsageDay, UsageReply } from '@gen/contracts';

/** What a key may do. */
export type Scope = ApiKeyScope;

export { MEMBER_ROLES, roleAtLeast, canManageRole } from '@gen/contracts';
export type { MemberRole } from '@gen/contracts';

/** An account the user belongs to, with their role there. */
export type AccountChoice = ContractAccountChoice;
export type Session = SessionReply;
export type Member = MemberView;
export type Invitation = InvitationView;
export type InvitationPreview = InvitationPreviewReply;

/** A generation as the dashboard API returns it: the public API's record, with the input as applied, its metadata and every output. */
export type Generation = GenerationRecord;

/** A catalogue model as the account sees it, with its input schema and how its price is computed. */
export type Model = ModelInfo;

export type Overview = OverviewReply;
export type GenerationPage = ListGenerationsReply;

/** One attempt of a delivery. */
export type { WebhookAttemptView as DeliveryAttempt } from '@gen/contracts';

/** A webhook delivery with its attempts (the webhooks service's delivery log). */
export type Delivery = WebhookDeliveryView;

/** The catalogue as the account sees it, with its plan and credits. */
export type ModelsPage = ModelsReply;

export type LedgerEntry = LedgerEntryView;
export type LedgerPage = LedgerReply;

/** The low-balance alert (Settings, Account): threshold (null: off), balance, alerted now, latest deliveries. */
export type LowBalance = LowBalanceReply;

export type SessionView = ContractSessionView;
export type GenerationDetail = GenerationDetailReply;

/** A key; listed keys carry their spending caps and spend (a key just created or changed has none until the list is read again). */
export type ApiKey = KeyView & { caps?: KeyCaps };

export type WebhookScheme = ContractWebhookScheme;

/** A key's spending caps per UTC day and month (null: none) and what it has spent. */
export type KeyCaps = ContractKeyCaps;

export type KeyChange = KeyChangeReply;
export type CreatedKey = CreatedKeyReply;

/** What the playground submits: POST /api/v1/generate's body. */
export type GenerateBody = GenerateRequestBody;

/** The Billing page's data (docs/guide/billing.md). */
export type BillingOverview = PaymentsOverview;
export type Purchase = PurchaseView;
/** A batch as the API shows it (docs/design/batches.md), and a cursor page of them. */
export type Batch = BatchView;
export type BatchesPage = ListBatchesReply;
export type { BatchCounts, BatchStatus } from '@gen/contracts';

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
  batches: (cursor?: string, limit = 20) => api<BatchesPage>('GET', `/batches?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
  batch: (id: string) => api<Batch>('GET', `/batches/${encodeURIComponent(id)}`),
  cancelBatch: (id: string) => api<Batch>('POST', `/batches/${encodeURIComponent(id)}/cancel`),
  keys: () => api<{ data: ApiKey[] }>('GET', '/keys'),
  /** `scopes` and `webhook_url` are an admin's: a developer sends the name only (the key gets the account's defaults). */
  createKey: (input: { name: string; scopes?: Scope[]; webhook_url?: string | null }) => api<CreatedKey>('POST', '/keys', input),
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
  upload: (keyId: string, file: File) => uploadFile<UploadReply>(`/keys/${keyId}/uploads`, file),
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
  billing: () => api<BillingOverview>('GET', '/billing'),
  billingPurchases: () => api<ListPurchasesReply>('GET', '/billing/purchases?limit=20'),
  billingInvoices: () => api<ListInvoicesReply>('GET', '/billing/invoices?limit=20'),
  billingCheckout: (packId: string) => api<CheckoutReply>('POST', '/billing/checkout', { pack_id: packId }),
  billingPortal: () => api<PortalReply>('POST', '/billing/portal'),
  billingSubscribe: (plan: ContractPlanName) => api<SubscribeReply>('POST', '/billing/subscription', { plan }),
  billingSetTopUp: (packId: string | null, threshold: number | null) => api<TopUpView>('PUT', '/billing/top-up', { pack_id: packId, threshold }),
  setLowBalance: (threshold: number | null) => api<Omit<LowBalance, 'deliveries'>>('PUT', '/account/low-balance', { threshold }),
  switchAccount: (accountId: string) => api<Session>('PUT', '/session/account', { account_id: accountId }),
  members: () => api<MembersReply>('GET', '/members'),
  invite: (email: string, role: MemberRole) => api<{ mailed: boolean }>('POST', '/members/invitations', { email, role }),
  withdrawInvitation: (id: string) => api<void>('DELETE', `/members/invitations/${id}`),
  changeRole: (userId: string, role: MemberRole) => api<void>('PUT', `/members/${userId}/role`, { role }),
  /** `revokeKeys`: also revoke the keys they made (their invitations are withdrawn either way). */
  removeMember: (userId: string, revokeKeys = false) =>
    api<{ ended_sessions: number; canceled_invitations?: number; revoked_keys?: number }>('DELETE', `/members/${userId}${revokeKeys ? '?revoke_keys=true' : ''}`),
  transferOwnership: (userId: string) => api<void>('POST', '/members/transfer-ownership', { user_id: userId }),
  previewInvitation: (token: string) => api<InvitationPreview>('POST', '/invitations/preview', { token }),
  acceptInvitation: (token: string) => api<Session>('POST', '/invitations/accept', { token }),
  acceptInvitationSignIn: (token: string, email: string, password: string) => api<Session>('POST', '/invitations/accept-sign-in', { token, email, password }),
  acceptInvitationSignUp: (token: string, password: string) => api<Session>('POST', '/invitations/accept-sign-up', { token, password }),
  changePassword: (currentPassword: string, newPassword: string) =>
    api<{ ended_sessions: number }>('POST', '/account/password', { current_password: currentPassword, new_password: newPassword }),
};

/** An audit log entry (Settings, Audit log). */
export type AuditEntry = AuditEntryReply;
export type AuditPageData = AuditPageReply;

/** Where the CSV export of the audit log downloads from (with the page's filters as its query). */
export const AUDIT_CSV_URL = '/dashboard/api/audit/entries.csv';

/** Where the CSV export of the ledger downloads from (a plain link: the browser sends the session cookie). */
export const LEDGER_CSV_URL = '/dashboard/api/usage/ledger.csv';

/** A batch's results or errors file (JSONL, one BatchLineResult a line): a plain link, the browser sends the session cookie. */
export function batchFileUrl(id: string, file: 'results' | 'errors'): string {
  return `/dashboard/api/batches/${encodeURIComponent(id)}/${file}`;
}
