import { Inject, Injectable, Logger } from '@nestjs/common';
import { CatalogueService } from '../../catalogue/catalogue.service';
import { CallbackUrls } from '../../ports/callback-urls';
import { EngineError, EngineOutput, EngineRequest } from '../../ports/engine';
import { GENERATION_SETTINGS, GenerationSettings } from '../../config/generation.tokens';
import { BindingLimits } from '../binding-limits.service';
import type { JobEntity } from '../job.entity';
import { UpstreamRefsWriter } from '../upstream-refs.writer';
import { PARKED, ProviderPhases } from './provider-phases.service';
import { CANCELED, LEASE_LOST, Run } from './running-jobs';

/**
 * A run's call of its model's engine: the request (with the engine timeout, progress and throttling
 * reports, and the upstream job's id saved as soon as there is one), provider engines in phases
 * where parking is on, and the cancel of a provider's job nobody wants any more.
 */
@Injectable()
export class EngineCalls {
  private readonly logger = new Logger(EngineCalls.name);

  constructor(
    private readonly catalogue: CatalogueService,
    private readonly upstreamRefs: UpstreamRefsWriter,
    private readonly phases: ProviderPhases,
    private readonly limits: BindingLimits,
    private readonly callbacks: CallbackUrls,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {}

  async run(run: Run): Promise<EngineOutput[] | typeof PARKED> {
    const { job } = run;
    const signal = run.abort.signal;
    // The model as the catalogue stands now: a disabled model's accepted jobs still run (docs/operations/catalogue.md).
    const model = this.catalogue.find(job.modelId);
    if (!model) throw new EngineError('This model is no longer available. Your credits were refunded.');
    const { engine, unavailable } = this.catalogue.engineFor(model);
    if (!engine) throw new EngineError(`${unavailable} Your credits were refunded.`);
    run.engine = engine;
    const timeout = AbortSignal.timeout(this.settings.engineTimeoutMs);
    const combined = AbortSignal.any([signal, timeout]);
    const latency = Number(model.params.latencyMs ?? 0) * this.settings.latencyScale;
    const request: EngineRequest = {
      jobId: job.id,
      modelId: model.id,
      type: model.type,
      prompt: job.prompt,
      input: job.input,
      seed: job.seq,
      params: { ...model.params, latencyMs: latency },
      signal: combined,
      upstreamRef: job.upstreamRef,
      // Sent by adapters whose binding has "callbacks": true (docs/operations/providers.md, "Callbacks").
      callbackUrl: this.callbacks.urlFor(job.id, model.engine),
      saveUpstreamRef: async (ref) => {
        run.upstreamRef = ref;
        if (await this.upstreamRefs.save(job.id, this.settings.workerId, ref)) return;
        // Not ours any more: finished by a cancel (the caller then cancels upstream), or taken over.
        throw signal.aborted && signal.reason === CANCELED ? CANCELED : LEASE_LOST;
      },
      reportProgress: (fraction) => {
        if (Number.isFinite(fraction)) run.progress = Math.min(1, Math.max(0, fraction));
      },
      reportThrottled: (retryAfterMs) => this.limits.throttled(engine.phases?.binding ?? model.id, retryAfterMs),
    };
    try {
      const phases = this.settings.providerParking ? engine.phases : undefined;
      if (phases) return await this.phases.run(run, model, phases, request);
      return await engine.generate(request);
    } catch (error) {
      if (timeout.aborted) throw new EngineError('The generation took too long and was stopped. Your credits were refunded.');
      throw error;
    }
  }

  /** Best effort: a provider job of a canceled run is canceled upstream, so nobody pays for it to go on. */
  async cancelUpstream(run: Run): Promise<void> {
    if (!run.upstreamRef || !run.engine?.cancel) return;
    try {
      await run.engine.cancel(run.upstreamRef);
    } catch (error) {
      this.logger.warn({ err: error, jobId: run.job.id }, 'Canceling the upstream job failed');
    }
  }

  /** A parked job was canceled (no run has it): its upstream job is canceled from here, best effort. */
  cancelParked(job: JobEntity): void {
    if (job.upstreamRef === null) return;
    const model = this.catalogue.find(job.modelId);
    const engine = model ? this.catalogue.engineFor(model).engine : null;
    if (!engine?.cancel) return;
    engine.cancel(job.upstreamRef).catch((error: unknown) => this.logger.warn({ err: error, jobId: job.id }, 'Canceling the upstream job failed'));
  }
}
