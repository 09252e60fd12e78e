import type { EnvReader } from '@gen/config';
import { parseAllowList, WebhookDestinationPolicy } from '@gen/webhook-policy';

/**
 * The webhooks service's settings. Every one but the three destination rules has a default
 * (WEBHOOKS_DEFAULTS), which is what standalone mode runs with; distributed mode reads them all from
 * the environment (readWebhooksSettings, the one inventory of WEBHOOK_* variables).
 */
export interface WebhooksSettings {
  /** Allow plain http destinations (development, tests, standalone). */
  allowHttp: boolean;
  /** Allow private and loopback destinations (development, tests). */
  allowPrivateNetworks: boolean;
  /** CIDRs or host names always allowed (on-premise receivers). */
  allowList: string[];
  /** Safety-net poll of due deliveries (restarts, other replicas), ms. */
  pollIntervalMs?: number;
  /**
   * How long a claimed attempt is reserved for the process making it, ms. Longer than an attempt
   * can take (secret lookup + 5 s); after a crash, its delivery resumes when this expires.
   */
  leaseMs?: number;
  /** Attempts in flight at once per process (all receivers together). */
  maxInFlight?: number;
  /**
   * Requests in flight at once to one receiver origin per process; attempts beyond wait for a free
   * connection, within their 5 s.
   */
  connectionsPerOrigin?: number;
  /** Timeout of the signing-secret lookup made before attempts, ms. */
  secretLookupTimeoutMs?: number;

  // The dispatcher's tuning (docs/webhooks.md, "Configuration"): what it batches and how much it
  // does at once. The defaults are what bench:webhooks measured best on a 2-core machine.
  /** How long before trying again an attempt that could not start (its claim, or the key's secret lookup, failed; nothing was sent), ms. */
  notStartedRetryMs?: number;
  /** Deliveries claimed in one statement. */
  claimBatch?: number;
  /** Claim statements in flight at once. */
  claimConcurrency?: number;
  /** Due deliveries the poll reads in one pass. */
  pollLimit?: number;
  /** New deliveries written in one statement. */
  insertBatch?: number;
  /** Such statements in flight at once. */
  insertConcurrency?: number;
  /**
   * How long a new delivery may wait, before it is stored, for a free attempt slot, ms. Stored with a
   * slot, it is written already claimed for attempt 1 (one statement for the lot); stored without,
   * it needs a claim of its own later. Waiting a little under overload (its event is not
   * acknowledged yet, so a crash loses nothing) keeps deliveries on the cheap path; past this, it is
   * stored unclaimed so that its event can be acknowledged.
   */
  admissionWaitMs?: number;
  /** Attempt outcomes written in one statement. */
  recordBatch?: number;
  /** Such statements in flight at once. */
  recordConcurrency?: number;
  /**
   * The share of the attempt slots new deliveries may fill, in percent: the rest is kept for
   * retries, so that a flood of new events does not make scheduled retries late.
   */
  newDeliveryPercent?: number;
}

export type ResolvedWebhooksSettings = Required<WebhooksSettings>;

export const WEBHOOKS_DEFAULTS = {
  pollIntervalMs: 1_000,
  leaseMs: 15_000,
  maxInFlight: 1_024,
  connectionsPerOrigin: 256,
  secretLookupTimeoutMs: 2_000,
  notStartedRetryMs: 1_000,
  claimBatch: 200,
  claimConcurrency: 2,
  pollLimit: 2_000,
  insertBatch: 500,
  insertConcurrency: 2,
  admissionWaitMs: 250,
  recordBatch: 500,
  recordConcurrency: 2,
  newDeliveryPercent: 90,
} as const satisfies Omit<ResolvedWebhooksSettings, 'allowHttp' | 'allowPrivateNetworks' | 'allowList'>;

export function resolveWebhooksSettings(settings: WebhooksSettings): ResolvedWebhooksSettings {
  const resolved: ResolvedWebhooksSettings = { ...WEBHOOKS_DEFAULTS, ...settings, allowList: [...settings.allowList] };
  // An explicit `undefined` (an optional setting passed through) means the default too.
  for (const [name, value] of Object.entries(WEBHOOKS_DEFAULTS)) {
    if (resolved[name as keyof typeof WEBHOOKS_DEFAULTS] === undefined) resolved[name as keyof typeof WEBHOOKS_DEFAULTS] = value;
  }
  return resolved;
}

/**
 * Every WEBHOOK_* variable of the webhooks service, validated (a bad value is reported with its
 * name and range, and start-up stops). `destinationDefaults`: what the deployment allows when the
 * variables are not set (distributed: neither).
 */
export function readWebhooksSettings(
  env: EnvReader,
  destinationDefaults: { allowHttp: boolean; allowPrivateNetworks: boolean } = { allowHttp: false, allowPrivateNetworks: false },
): WebhooksSettings {
  const d = WEBHOOKS_DEFAULTS;
  const allowList = env.list('WEBHOOK_ALLOW_LIST');
  try {
    parseAllowList(allowList);
  } catch (error) {
    env.problem(`WEBHOOK_ALLOW_LIST: ${(error as Error).message}`);
  }
  return {
    allowHttp: env.bool('WEBHOOK_ALLOW_HTTP', destinationDefaults.allowHttp),
    allowPrivateNetworks: env.bool('WEBHOOK_ALLOW_PRIVATE_NETWORKS', destinationDefaults.allowPrivateNetworks),
    allowList,
    pollIntervalMs: env.int('WEBHOOK_POLL_INTERVAL_MS', d.pollIntervalMs, { min: 50, max: 60_000 }),
    // At least the 5 s attempt, the 2 s secret lookup and a margin: a lease shorter than an attempt
    // would let another replica count it as interrupted while it is still being sent.
    leaseMs: env.int('WEBHOOK_LEASE_MS', d.leaseMs, { min: 8_000, max: 600_000 }),
    maxInFlight: env.int('WEBHOOK_MAX_IN_FLIGHT', d.maxInFlight, { min: 1, max: 10_000 }),
    connectionsPerOrigin: env.int('WEBHOOK_CONNECTIONS_PER_ORIGIN', d.connectionsPerOrigin, { min: 1, max: 1_000 }),
    notStartedRetryMs: env.int('WEBHOOK_NOT_STARTED_RETRY_MS', d.notStartedRetryMs, { min: 50, max: 60_000 }),
    claimBatch: env.int('WEBHOOK_CLAIM_BATCH', d.claimBatch, { min: 1, max: 5_000 }),
    claimConcurrency: env.int('WEBHOOK_CLAIM_CONCURRENCY', d.claimConcurrency, { min: 1, max: 16 }),
    pollLimit: env.int('WEBHOOK_POLL_LIMIT', d.pollLimit, { min: 10, max: 100_000 }),
    insertBatch: env.int('WEBHOOK_INSERT_BATCH', d.insertBatch, { min: 1, max: 5_000 }),
    insertConcurrency: env.int('WEBHOOK_INSERT_CONCURRENCY', d.insertConcurrency, { min: 1, max: 16 }),
    admissionWaitMs: env.int('WEBHOOK_ADMISSION_WAIT_MS', d.admissionWaitMs, { min: 0, max: 5_000 }),
    recordBatch: env.int('WEBHOOK_RECORD_BATCH', d.recordBatch, { min: 1, max: 5_000 }),
    recordConcurrency: env.int('WEBHOOK_RECORD_CONCURRENCY', d.recordConcurrency, { min: 1, max: 16 }),
    newDeliveryPercent: env.int('WEBHOOK_NEW_DELIVERY_PERCENT', d.newDeliveryPercent, { min: 1, max: 100 }),
  };
}

/** The module's settings as the URL/IP policy of the security folder reads them. */
export function destinationPolicy(settings: Pick<WebhooksSettings, 'allowHttp' | 'allowPrivateNetworks' | 'allowList'>): WebhookDestinationPolicy {
  return { allowHttp: settings.allowHttp, allowPrivate: settings.allowPrivateNetworks, allowList: [...settings.allowList] };
}
