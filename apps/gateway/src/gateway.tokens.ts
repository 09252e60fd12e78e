import type { SettingsOf } from '@gen/config';
import type { WebhookDestinationPolicy } from '@gen/webhook-policy';
import type { GATEWAY_VARIABLES } from './gateway.settings';

/** DI token of the gateway's DataSource (schema `auth`). */
export const AUTH_DB = Symbol('AUTH_DB');
export const GATEWAY_SETTINGS = Symbol('GATEWAY_SETTINGS');

/** The gateway's settings: one field per variable of GATEWAY_VARIABLES, and what it shares with other processes. */
export interface GatewaySettings extends SettingsOf<typeof GATEWAY_VARIABLES> {
  /** Where clients reach the API, e.g. http://localhost:3000 */
  publicBaseUrl: string;
  /** Largest accepted request body (bytes). */
  bodyLimitBytes: number;
  /** The folder the gateway serves stored outputs from under /cdn; null: none (the operator CLI). */
  outputsDir: string | null;
  /** Timeout of calls to the other services (ms); POST /generate adds syncWaitMs. */
  rpcTimeoutMs: number;
  /** Which webhook destinations are accepted (the same policy the dispatcher enforces at connect time). */
  webhookPolicy: WebhookDestinationPolicy;
}
