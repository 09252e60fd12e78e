/**
 * Health pings: each service answers its own subject, so a caller (the gateway's readiness) can
 * tell that the service is subscribed and answering, not only that NATS is up.
 */
export const SERVICE_NAMES = ['gateway', 'billing', 'generation', 'webhooks'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

export const HealthSubjects: Record<ServiceName, string> = {
  gateway: 'health.gateway',
  billing: 'health.billing',
  generation: 'health.generation',
  webhooks: 'health.webhooks',
};

export interface HealthPingReply {
  service: ServiceName;
  status: 'ok';
}
