import { defaultsOf, EnvReader, int, SettingsOf } from '@gen/config';
import { readWebhookDestinationPolicy, WebhookDestinationPolicy } from '@gen/webhook-policy';

/**
 * The webhooks service's own variables (docs/operations/webhooks.md, "Configuration"), read by the service and
 * by standalone; the destination rules (WEBHOOK_ALLOW_*) are the gateway's too
 * (WEBHOOK_DESTINATION_VARIABLES). Each value reaches the dispatcher as the field of the same name
 * of ResolvedWebhooksSettings: a new variable is one line here. The batching defaults are what
 * bench:webhooks measured best on a 2-core machine.
 */
export const WEBHOOKS_VARIABLES = {
  /** Safety-net poll of due deliveries (restarts, other replicas). */
  pollIntervalMs: int('WEBHOOK_POLL_INTERVAL_MS', 1_000, "how often the safety-net poll looks for due deliveries it has no timer for (another replica's, or after a restart)", { min: 50, max: 60_000 }),
  // At least the 5 s attempt, the 2 s secret lookup and a margin: a lease shorter than an attempt
  // would let another replica count it as interrupted while it is still being sent.
  leaseMs: int('WEBHOOK_LEASE_MS', 15_000, "how long an attempt in flight is reserved for its process; after a crash, the delivery's next attempt goes when this runs out", { min: 8_000, max: 600_000 }),
  maxInFlight: int('WEBHOOK_MAX_IN_FLIGHT', 1_024, 'attempts in flight at once per process, all receivers together', { min: 1, max: 10_000 }),
  // Attempts beyond wait for a free connection, within their 5 s.
  connectionsPerOrigin: int('WEBHOOK_CONNECTIONS_PER_ORIGIN', 256, 'connections at once to one receiver (scheme, host and port) per process', { min: 1, max: 1_000 }),
  notStartedRetryMs: int('WEBHOOK_NOT_STARTED_RETRY_MS', 1_000, "how long before trying again an attempt that could not start (its claim, or the key's secret lookup, failed; nothing was sent, nothing counted)", { min: 50, max: 60_000 }),
  // Stored with a free slot, a new delivery is written already claimed for attempt 1 (one statement
  // for the lot); stored without, it needs a claim of its own later. Waiting a little under
  // overload (its event is not acknowledged yet, so a crash loses nothing) keeps deliveries on the
  // cheap path; past this, it is stored unclaimed so that its event can be acknowledged. A second
  // covers the consumer's window of 1,000 events at 1,000 deliveries/s, far inside its 30 s ack wait
  // (at 250 ms, 41 % of deliveries of a process flat out took the two-statement path).
  admissionWaitMs: int('WEBHOOK_ADMISSION_WAIT_MS', 1_000, 'how long a new delivery may wait for a free attempt slot before it is stored unclaimed (`docs/design/webhooks.md`, "Durability")', { min: 0, max: 5_000 }),
  // The rest is kept for retries, so that a flood of new events does not make scheduled retries late.
  newDeliveryPercent: int('WEBHOOK_NEW_DELIVERY_PERCENT', 90, 'the share of `WEBHOOK_MAX_IN_FLIGHT` that new deliveries may fill; the rest is kept for retries', { min: 1, max: 100 }),
  insertBatch: int('WEBHOOK_INSERT_BATCH', 500, 'new deliveries written in one statement (a flushed commit)', { min: 1, max: 5_000 }),
  insertConcurrency: int('WEBHOOK_INSERT_CONCURRENCY', 2, 'such insert statements at once', { min: 1, max: 16 }),
  claimBatch: int('WEBHOOK_CLAIM_BATCH', 200, 'due deliveries claimed in one statement', { min: 1, max: 5_000 }),
  claimConcurrency: int('WEBHOOK_CLAIM_CONCURRENCY', 2, 'such claim statements at once', { min: 1, max: 16 }),
  recordBatch: int('WEBHOOK_RECORD_BATCH', 500, 'attempt outcomes written in one statement', { min: 1, max: 5_000 }),
  recordConcurrency: int('WEBHOOK_RECORD_CONCURRENCY', 2, 'such outcome statements at once', { min: 1, max: 16 }),
  pollLimit: int('WEBHOOK_POLL_LIMIT', 2_000, 'due deliveries the poll reads in one pass', { min: 10, max: 100_000 }),
};

/** The dispatcher's tuning: the variables above, and what no variable sets. */
export type WebhooksTuning = SettingsOf<typeof WEBHOOKS_VARIABLES> & {
  /** Timeout of the signing-secret lookup made before attempts, ms. */
  secretLookupTimeoutMs: number;
};

export const WEBHOOKS_DEFAULTS: Readonly<WebhooksTuning> = { ...defaultsOf(WEBHOOKS_VARIABLES, 'webhooks'), secretLookupTimeoutMs: 2_000 };

/** The module's settings: the destination rules, and any tuning (the rest from WEBHOOKS_DEFAULTS). */
export interface WebhooksSettings extends Partial<WebhooksTuning> {
  /** Allow plain http destinations (development, tests, standalone). */
  allowHttp: boolean;
  /** Allow private and loopback destinations (development, tests). */
  allowPrivateNetworks: boolean;
  /** CIDRs or host names always allowed (on-premise receivers). */
  allowList: string[];
}

export type ResolvedWebhooksSettings = Required<WebhooksSettings>;

export function resolveWebhooksSettings(settings: WebhooksSettings): ResolvedWebhooksSettings {
  const resolved: ResolvedWebhooksSettings = { ...WEBHOOKS_DEFAULTS, ...settings, allowList: [...settings.allowList] };
  // An explicit `undefined` (an optional setting passed through) means the default too.
  for (const [name, value] of Object.entries(WEBHOOKS_DEFAULTS)) {
    if (resolved[name as keyof WebhooksTuning] === undefined) resolved[name as keyof WebhooksTuning] = value;
  }
  return resolved;
}

/** Everything the webhooks service reads of its own (distributed main and standalone); bad values name their variable. */
export function readWebhooksSettings(env: EnvReader): WebhooksSettings {
  const policy = readWebhookDestinationPolicy(env);
  return { allowHttp: policy.allowHttp, allowPrivateNetworks: policy.allowPrivate, allowList: [...policy.allowList], ...env.readAll(WEBHOOKS_VARIABLES) };
}

/** The module's settings as the URL/IP policy of the security folder reads them. */
export function destinationPolicy(settings: Pick<WebhooksSettings, 'allowHttp' | 'allowPrivateNetworks' | 'allowList'>): WebhookDestinationPolicy {
  return { allowHttp: settings.allowHttp, allowPrivate: settings.allowPrivateNetworks, allowList: [...settings.allowList] };
}
