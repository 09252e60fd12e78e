import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { Broadcasts, DatabaseChannels, type ModelInfo } from '@gen/contracts';
import { NotFoundError } from '@gen/errors';
import { PeriodicTask } from '@gen/observability';
import { PgNotifications } from '@gen/persistence';
import { Broadcaster } from '@gen/transport';
import { GENERATION_SETTINGS, GenerationSettings } from '../config/generation.tokens';
import { pricingText } from '@gen/model-inputs';
import { inputsOf, ModelDefinition, ModelDefinitionInput } from './catalogue';
import { ModelEngines, ResolvedEngine } from './model-engines';
import { ModelsRepository, sameDefinition } from './models.repository';
import { stableJson } from './stable-json';

/** DI token: models upserted into the catalogue at start (tests and embedders), or null. */
export const CATALOGUE_SEED = Symbol('CATALOGUE_SEED');

/** How often each replica re-reads the catalogue when GenerationSettings.catalogueRefreshMs is unset. */
export const DEFAULT_CATALOGUE_REFRESH_MS = 1_000;

/**
 * The catalogue as this replica serves it: the `models` table, read again at once when a change is
 * announced (the `generation.catalogue-changed` broadcast, or the database's own NOTIFY at the
 * writer's commit), and every second besides (a handful of rows), so a change made with the CLI on
 * any machine reaches every replica without a restart. Reads are served from memory; if the
 * database is briefly unreachable the last good copy stays in use. `version` names the content
 * (a digest), so a submit checked against another version reads the table again first.
 */
@Injectable()
export class CatalogueService implements OnModuleInit, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CatalogueService.name);
  private byId = new Map<string, ModelDefinition>();
  private refresher?: PeriodicTask;
  private refreshing?: Promise<void>;
  private loaded?: Promise<void>;
  private currentVersion = '';
  /** Why the last read of the table failed; undefined once one succeeds. */
  private lastReadFailure: unknown;
  private readonly unsubscribes: Array<() => void> = [];

  constructor(
    private readonly models: ModelsRepository,
    private readonly engines: ModelEngines,
    @Inject(CATALOGUE_SEED) private readonly seed: readonly ModelDefinitionInput[] | null,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
    @Optional() @Inject(Broadcaster) private readonly broadcaster: Broadcaster | null = null,
    @Optional() @Inject(PgNotifications) private readonly notifications: PgNotifications | null = null,
  ) {}

  /** Names the catalogue as this replica holds it now (ListModelsReply.version). */
  get version(): string {
    return this.currentVersion;
  }

  async onModuleInit(): Promise<void> {
    for (const input of this.seed ?? []) {
      const model: ModelDefinition = {
        ...input,
        status: input.status ?? 'active',
        provider: input.provider ?? this.engines.providerOf(input.engine),
        description: input.description ?? '',
      };
      if (!(await this.models.insert(model))) await this.models.replace(model);
    }
    await this.ready();
  }

  /**
   * Resolves once the catalogue has been read: message handlers await it, so a message that arrives
   * while the service starts is never answered from an empty catalogue ("unknown model").
   */
  ready(): Promise<void> {
    this.loaded ??= this.refresh().catch((error: unknown) => {
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  onApplicationBootstrap(): void {
    const reread = () => void this.refreshNow().catch((error: unknown) => this.logger.warn({ err: error }, 'Reading the catalogue failed'));
    if (this.broadcaster) this.unsubscribes.push(this.broadcaster.subscribe(Broadcasts.catalogueChanged, reread));
    if (this.notifications) {
      this.unsubscribes.push(this.notifications.listen(DatabaseChannels.catalogueChanged, reread));
      this.unsubscribes.push(this.notifications.onResync(reread));
    }
    this.refresher = new PeriodicTask({
      name: 'Catalogue refresh',
      intervalMs: this.settings.catalogueRefreshMs ?? DEFAULT_CATALOGUE_REFRESH_MS,
      run: () => this.refresh(),
      onError: (error) => this.logger.warn({ err: error }, 'Reading the catalogue failed'),
    });
    this.refresher.start();
  }

  async onApplicationShutdown(): Promise<void> {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
    await this.refresher?.stop();
  }

  /** Re-reads the table now (also what the timer does); concurrent calls share one read. */
  refresh(): Promise<void> {
    this.refreshing ??= this.load().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /**
   * Resolves after a read of the table that started after this call (a read already under way may
   * have started before the change the caller knows of): what a change notice and a gateway's
   * read of the catalogue wait for.
   */
  refreshNow(): Promise<void> {
    const running = this.refreshing;
    return running ? running.catch(() => undefined).then(() => this.refresh()) : this.refresh();
  }

  /**
   * Resolves after a read of the table that started after this call and succeeded; throws that
   * read's failure otherwise (a gateway's fresh read must not get this replica's older copy back).
   */
  async readFresh(): Promise<void> {
    await this.refreshNow();
    if (this.lastReadFailure !== undefined) throw this.lastReadFailure;
  }

  /** Every model, disabled ones included, as the API shows them (`available` before the caller's plan). */
  list(): ModelInfo[] {
    return [...this.byId.values()].map((m) => this.info(m));
  }

  /** The model as the API shows it, or undefined for an unknown id. */
  describe(modelId: string): ModelInfo | undefined {
    const model = this.byId.get(modelId);
    return model && this.info(model);
  }

  get(modelId: string): ModelInfo {
    const info = this.describe(modelId);
    if (!info) throw new NotFoundError(`Unknown model "${modelId}".`);
    return info;
  }

  /** Every model's definition as read (the claims' and checks' view: no API shape built). */
  definitions(): IterableIterator<ModelDefinition> {
    return this.byId.values();
  }

  find(modelId: string): ModelDefinition | undefined {
    return this.byId.get(modelId);
  }

  engineFor(model: ModelDefinition): ResolvedEngine {
    return this.engines.resolve(model);
  }

  private info(model: ModelDefinition): ModelInfo {
    const unavailable = model.status === 'disabled' ? 'The operator has disabled this model.' : this.engines.resolve(model).unavailable;
    return {
      id: model.id,
      name: model.name,
      type: model.type,
      credits: model.credits,
      minimum_credits: model.minimumCredits,
      synchronous: model.synchronous,
      min_plan: model.minPlan,
      provider: model.provider,
      description: model.description,
      available: unavailable === null,
      unavailable_reason: unavailable,
      inputs: inputsOf(model),
      price_multipliers: model.priceMultipliers ?? [],
      pricing: pricingText(model.credits, model.priceMultipliers ?? []),
      ...(model.openai && { openai: model.openai }),
      ...(model.batchCredits !== undefined && { batch_credits: model.batchCredits }),
    };
  }

  private async load(): Promise<void> {
    try {
      const models = await this.models.all();
      this.lastReadFailure = undefined;
      const changed = models.length !== this.byId.size || models.some((m) => !this.byId.has(m.id) || !sameDefinition(m, this.byId.get(m.id)!));
      if (!changed) return;
      this.byId = new Map(models.map((m) => [m.id, m]));
      this.currentVersion = catalogueVersion(models);
      this.engines.retain(models);
      this.logger.log({ models: models.length }, 'Catalogue loaded');
    } catch (error) {
      this.lastReadFailure = error;
      if (this.byId.size === 0) throw error; // nothing to serve yet: start-up fails with the cause
      this.logger.warn({ err: error }, 'Re-reading the catalogue failed; serving the last copy');
    }
  }
}

/** A short digest of the catalogue's content: equal on every replica that read the same rows. */
function catalogueVersion(models: readonly ModelDefinition[]): string {
  const sorted = [...models].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return createHash('sha256').update(stableJson(sorted)).digest('base64url').slice(0, 16);
}
