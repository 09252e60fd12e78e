import type { WebhookDestinationPolicy } from '@gen/webhook-policy';

/** DI token of the gateway's DataSource (schema `auth`). */
export const AUTH_DB = Symbol('AUTH_DB');
export const GATEWAY_SETTINGS = Symbol('GATEWAY_SETTINGS');

export interface GatewaySettings {
  /** Where clients reach the API, e.g. http://localhost:3000 */
  publicBaseUrl: string;
  /** How long POST /generate waits for a synchronous model before answering 202 (ms). */
  syncWaitMs: number;
  /** Largest accepted request body (bytes). */
  bodyLimitBytes: number;
  /** When set, the gateway serves stored outputs from this folder under /cdn (standalone). */
  outputsDir: string | null;
  /** Timeout of calls to the other services (ms); POST /generate adds syncWaitMs. */
  rpcTimeoutMs: number;
  /** Which webhook destinations are accepted (the same policy the dispatcher enforces at connect time). */
  webhookPolicy: WebhookDestinationPolicy;
  /** Live status streams one account may hold open at once (SSE_STREAMS_PER_ACCOUNT; default 20). */
  streamsPerAccount?: number;
  /** How often an idle live status stream sends a comment line (SSE_HEARTBEAT_MS; default 15 s). */
  streamHeartbeatMs?: number;
}
