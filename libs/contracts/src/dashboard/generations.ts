import type { GenerationRecord, GenerationType, ModelInfo, PlanName } from '../shared/generation';
import type { WebhookDeliveryView } from '../messages/webhooks.replies';

/** GET /dashboard/api/overview: the account, its plan, limits and credits, active keys and latest generations. */
export interface OverviewReply {
  account: { id: string; name: string; email: string };
  plan: PlanName;
  limits: { requests_per_minute: number; parallel_tasks: number };
  credits: { available: number; held: number };
  active_keys: number;
  recent_generations: GenerationRecord[];
}

/** The webhook deliveries of a generation (oldest first), when the webhooks service can tell. */
export interface DeliveriesView {
  available: boolean;
  /** Why they cannot be shown, when `available` is false. */
  message: string | null;
  data: WebhookDeliveryView[];
}

/** GET /dashboard/api/generations/:id: the record and its webhook deliveries with their attempts. */
export interface GenerationDetailReply {
  generation: GenerationRecord;
  deliveries: DeliveriesView;
}

/** GET /dashboard/api/models: the catalogue as the account sees it, with its plan and credits. */
export interface ModelsReply {
  plan: PlanName;
  credits: { available: number; held: number };
  /** As GET /api/v1/models answers for this account: each model `available` or with its reason. */
  data: ModelInfo[];
}

/** POST /api/v1/uploads, and the playground's upload for a media input: the file, named for `input`. */
export interface UploadReply {
  id: string;
  /** Where the provider (and the customer) reads it: the content host, as outputs are. */
  url: string;
  expires_at: string;
  content_type: string;
  bytes: number;
}

/** The body of POST /api/v1/generate, which the playground sends too (`POST /dashboard/api/keys/{id}/generate`). */
export interface GenerateRequestBody {
  model: string;
  prompt: string;
  type: GenerationType;
  webhook_url?: string;
  /** The model's inputs, checked against its `inputs` schema. */
  input?: Record<string, unknown>;
  /** Up to 16 string keys and values of the customer's own. */
  metadata?: Record<string, string>;
}
