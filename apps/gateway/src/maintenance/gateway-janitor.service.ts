import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '@gen/observability';
import { AuditService } from '../audit-log/audit.service';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { LowBalanceRepository } from '../low-balance/low-balance.repository';
import { RateLimitRepository } from '../rate-limit/rate-limit.repository';
import { UploadsService } from '../uploads/uploads.service';

/** Ended rate-limit windows are kept this long (a request counted at a window's very end is done by then). */
const WINDOW_GRACE_MS = 60_000;
const SWEEP_INTERVAL_MS = 60_000;
/** Low-balance mails sent are remembered this long (against mailing someone twice for one redelivered event). */
const LOW_BALANCE_MAILS_KEPT_DAYS = 7;

/**
 * Removes ended rate-limit windows, idempotency records past their 24 h, audit entries past
 * AUDIT_RETENTION_DAYS, uploads past their end (objects, then rows) and week-old records of
 * low-balance mails sent. Every gateway replica
 * sweeps (with jitter, so they spread out); concurrent sweeps are harmless.
 */
@Injectable()
export class GatewayJanitorService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(GatewayJanitorService.name);
  private readonly sweeper = new PeriodicTask({
    name: 'Gateway janitor',
    intervalMs: SWEEP_INTERVAL_MS,
    jitter: 0.25,
    run: () => this.sweep(),
    onError: (error) => this.logger.warn({ err: error }, 'Sweeping expired rate-limit windows, idempotency keys and uploads failed'),
  });

  constructor(
    private readonly windows: RateLimitRepository,
    private readonly idempotency: IdempotencyService,
    private readonly audit: AuditService,
    private readonly uploads: UploadsService,
    private readonly lowBalance: LowBalanceRepository,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeper.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.sweeper.stop();
  }

  /** One pass; returns what was removed. */
  async sweep(): Promise<{ windows: number; idempotencyKeys: number; auditEntries: number; uploads: number; lowBalanceMails: number }> {
    const windows = await this.windows.deleteExpired(WINDOW_GRACE_MS);
    const idempotencyKeys = await this.idempotency.deleteExpired();
    const auditEntries = await this.audit.purge(this.settings.auditRetentionDays);
    const uploads = await this.uploads.sweepExpired();
    const lowBalanceMails = await this.lowBalance.forgetMailedBefore(LOW_BALANCE_MAILS_KEPT_DAYS);
    return { windows, idempotencyKeys, auditEntries, uploads, lowBalanceMails };
  }
}
