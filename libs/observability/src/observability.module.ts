import { DynamicModule, Global, InjectionToken, Module, Provider } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import type { ServiceName } from '@gen/contracts';
import { MessageRefusals } from '@gen/transport';
import { BuildInfo, buildFields, registerBuildInfo } from './build/build-info';
import { BUILD_FIELDS, HealthController, READINESS_CHECKS } from './health/health.controller';
import { healthPingController } from './health/health-ping.controller';
import type { ReadinessCheck } from './health/readiness-check';
import { DrainState } from './lifecycle/drain-state';
import { LoggingOptions, ServiceLogs } from './logging/logger';
import { NestPinoLogger } from './logging/nest-logger';
import { HttpMetrics } from './metrics/http-metrics';
import { MetricsController } from './metrics/metrics.controller';
import { MetricsRegistry } from './metrics/metrics-registry';

export interface ObservabilityOptions {
  /** The process's name in logs and the `service` label of every metric. */
  service: string;
  logging: Omit<LoggingOptions, 'service'>;
  /** What /readyz verifies, built from the application's own providers. */
  readiness?: {
    inject?: InjectionToken[];
    useFactory: (...deps: never[]) => ReadinessCheck[];
  };
  /** Serve process metrics (CPU, memory, event-loop lag); on by default. */
  defaultMetrics?: boolean;
  /** Services whose health ping (HealthSubjects) this process answers over its message transport. */
  answersPingFor?: readonly ServiceName[];
  /** The release of each service this process runs: in /healthz's body and the gen_build_info gauge. */
  builds?: readonly BuildInfo[];
}

const TRANSPORT_REFUSALS_REGISTERED = Symbol('transport refusals registered');

/**
 * Logs (pino: Nest's logger, and one line per request from observed-http.ts), metrics (prom-client,
 * GET /metrics) and health (terminus, GET /healthz and GET /readyz) for one process, in one import. Global: service modules inject MetricsRegistry to
 * register their own metrics and DrainState to learn that the process is shutting down.
 */
@Global()
@Module({})
export class ObservabilityModule {
  static forRoot(options: ObservabilityOptions): DynamicModule {
    const readiness: Provider = options.readiness
      ? { provide: READINESS_CHECKS, inject: options.readiness.inject ?? [], useFactory: options.readiness.useFactory }
      : { provide: READINESS_CHECKS, useValue: [] };
    return {
      module: ObservabilityModule,
      imports: [TerminusModule.forRoot({ errorLogStyle: 'json' })],
      controllers: [
        HealthController,
        MetricsController,
        ...(options.answersPingFor?.length ? [healthPingController(options.answersPingFor)] : []),
      ],
      providers: [
        { provide: ServiceLogs, useFactory: () => new ServiceLogs({ service: options.service, ...options.logging }) },
        { provide: NestPinoLogger, inject: [ServiceLogs], useFactory: (logs: ServiceLogs) => new NestPinoLogger(logs.app) },
        {
          provide: MetricsRegistry,
          useFactory: () => {
            const metrics = new MetricsRegistry(options.service, { defaultMetrics: options.defaultMetrics });
            registerBuildInfo(metrics.registry, options.builds ?? []);
            return metrics;
          },
        },
        { provide: BUILD_FIELDS, useValue: buildFields(options.service, options.builds ?? []) },
        { provide: HttpMetrics, inject: [MetricsRegistry], useFactory: (registry: MetricsRegistry) => new HttpMetrics(registry) },
        {
          // The transport's count of malformed messages (TransportModule provides it; absent without a transport).
          provide: TRANSPORT_REFUSALS_REGISTERED,
          inject: [MetricsRegistry, { token: MessageRefusals, optional: true }],
          useFactory: (registry: MetricsRegistry, refusals?: MessageRefusals) => {
            if (refusals) registry.registry.registerMetric(refusals.counter);
            return Boolean(refusals);
          },
        },
        { provide: DrainState, useValue: new DrainState() },
        readiness,
      ],
      exports: [ServiceLogs, NestPinoLogger, MetricsRegistry, HttpMetrics, DrainState],
    };
  }
}
