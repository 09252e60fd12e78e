import { Controller, Get, Header, Inject, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { HealthCheckResult, HealthCheckService, HealthIndicatorFunction, HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import type { FastifyReply } from 'fastify';
import { DrainState } from '../lifecycle/drain-state';
import { ReadinessCheck } from './readiness-check';

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
/** The release fields /healthz adds to terminus's report (build-info.ts, buildFields). */
export const BUILD_FIELDS = Symbol('BUILD_FIELDS');

/**
 * /healthz: the process is alive and its event loop turns (liveness: restart me if not).
 * /readyz: every dependency answers and the process is not shutting down (readiness: route
 * traffic to me). Both through @nestjs/terminus: 200 `{status:"ok"}` or 503 with terminus's report
 * (`status`, `info`, `error`, `details` per check), never the API's error envelope: probes and
 * operators read these. /healthz also says which release runs: `service`, `version` and `contract`
 * (standalone: `services`, each one's version), beside terminus's fields, never instead of them.
 */
@ApiExcludeController()
@Controller()
export class HealthController {
  private readonly startedAt = Date.now();

  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly drain: DrainState,
    @Inject(READINESS_CHECKS) private readonly checks: ReadinessCheck[],
    @Inject(BUILD_FIELDS) private readonly build: Record<string, unknown>,
  ) {}

  @Get('healthz')
  @Header('Cache-Control', 'no-store')
  async live(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthCheckResult & Record<string, unknown>> {
    const report = await this.report(reply, [
      async () => this.indicators.check('process').up({ uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000) }),
    ]);
    return { ...report, ...this.build };
  }

  @Get('readyz')
  @Header('Cache-Control', 'no-store')
  ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<HealthCheckResult> {
    return this.report(reply, [
      async () =>
        this.drain.draining
          ? this.indicators.check('lifecycle').down({ message: 'shutting down' })
          : this.indicators.check('lifecycle').up(),
      ...this.checks.map((c) => () => this.run(c)),
    ]);
  }

  private async report(reply: FastifyReply, indicators: HealthIndicatorFunction[]): Promise<HealthCheckResult> {
    try {
      return await this.health.check(indicators);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableException)) throw error;
      void reply.status(503);
      return error.getResponse() as HealthCheckResult;
    }
  }

  private async run(readiness: ReadinessCheck): Promise<HealthIndicatorResult> {
    const session = this.indicators.check(readiness.name);
    try {
      return session.up((await readiness.check()) ?? {});
    } catch (error) {
      return session.down({ message: error instanceof Error ? error.message : String(error) });
    }
  }
}
