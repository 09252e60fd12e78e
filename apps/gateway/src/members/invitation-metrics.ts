import { Counter } from 'prom-client';
import { MetricsRegistry } from '@gen/observability';

/** Why an invitation was refused before any mail: the limits, or an inviter whose address is not verified. */
export const INVITATION_REFUSALS = ['account_hourly_limit', 'address_daily_limit', 'unverified_inviter'] as const;
export type InvitationRefusal = (typeof INVITATION_REFUSALS)[number];

/** `gen_dashboard_invitations_refused_total{reason}`: invitations refused (docs/guide/dashboard.md, "Invitations"). */
export class InvitationMetrics {
  private readonly refused: Counter<'reason'>;

  constructor(metrics: MetricsRegistry) {
    this.refused = new Counter({
      name: 'gen_dashboard_invitations_refused_total',
      help: 'Invitations refused before any mail was sent, by reason',
      labelNames: ['reason'],
      registers: [metrics.registry],
    });
    for (const reason of INVITATION_REFUSALS) this.refused.inc({ reason }, 0);
  }

  refusal(reason: InvitationRefusal): void {
    this.refused.inc({ reason });
  }
}
