import type { WebhookDestinationPolicy } from '@gen/webhook-policy';

export interface WebhooksSettings {
  /** Allow plain http destinations (development, tests, standalone). */
  allowHttp: boolean;
  /** Allow private and loopback destinations (development, tests). */
  allowPrivateNetworks: boolean;
  /** CIDRs or host names always allowed (on-premise receivers). */
  allowList: string[];
  /** Safety-net poll of due deliveries (restarts, other replicas), ms. Default 1000. */
  pollIntervalMs?: number;
  /**
   * How long a claimed attempt is reserved for the process making it, ms. Longer than an attempt
   * can take (secret lookup + 5 s); after a crash, its delivery resumes when this expires. Default 15000.
   */
  leaseMs?: number;
  /** Attempts in flight at once per process (all receivers together). Default 1024. */
  maxInFlight?: number;
  /**
   * Requests in flight at once to one receiver origin per process; attempts beyond wait for a free
   * connection, within their 5 s. Default 256.
   */
  connectionsPerOrigin?: number;
  /** Timeout of the signing-secret lookup made before each attempt, ms. Default 2000. */
  secretLookupTimeoutMs?: number;
}

export type ResolvedWebhooksSettings = Required<WebhooksSettings>;

export const WEBHOOKS_DEFAULTS = {
  pollIntervalMs: 1_000,
  leaseMs: 15_000,
  maxInFlight: 1_024,
  connectionsPerOrigin: 256,
  secretLookupTimeoutMs: 2_000,
} as const;

export function resolveWebhooksSettings(settings: WebhooksSettings): ResolvedWebhooksSettings {
  return {
    allowHttp: settings.allowHttp,
    allowPrivateNetworks: settings.allowPrivateNetworks,
    allowList: [...settings.allowList],
    pollIntervalMs: settings.pollIntervalMs ?? WEBHOOKS_DEFAULTS.pollIntervalMs,
    leaseMs: settings.leaseMs ?? WEBHOOKS_DEFAULTS.leaseMs,
    maxInFlight: settings.maxInFlight ?? WEBHOOKS_DEFAULTS.maxInFlight,
    connectionsPerOrigin: settings.connectionsPerOrigin ?? WEBHOOKS_DEFAULTS.connectionsPerOrigin,
    secretLookupTimeoutMs: settings.secretLookupTimeoutMs ?? WEBHOOKS_DEFAULTS.secretLookupTimeoutMs,
  };
}

/** The module's settings as the URL/IP policy of the security folder reads them. */
export function destinationPolicy(settings: Pick<WebhooksSettings, 'allowHttp' | 'allowPrivateNetworks' | 'allowList'>): WebhookDestinationPolicy {
  return { allowHttp: settings.allowHttp, allowPrivate: settings.allowPrivateNetworks, allowList: [...settings.allowList] };
}
