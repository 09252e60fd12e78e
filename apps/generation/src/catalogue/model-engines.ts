import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { Engine } from '../ports/engine';
import { GENERATION_SETTINGS, GenerationSettings } from '../config/generation.tokens';
import type { EngineKind, ProviderContext } from '../ports/engine-kind';
import type { ModelDefinition } from './catalogue';
import { stableJson } from './stable-json';

/** DI token: the engine kinds by name (ReadonlyMap<string, EngineKind>). */
export const ENGINE_KINDS = Symbol('ENGINE_KINDS');
/** DI token: what kinds may read when they build an engine (ProviderContext). */
export const PROVIDER_CONTEXT = Symbol('PROVIDER_CONTEXT');

/** The engine of a model, or why it cannot run here. */
export type ResolvedEngine = { engine: Engine; unavailable: null } | { engine: null; unavailable: string };

/**
 * The engines of the catalogue's models, built from their bindings and rebuilt when a binding
 * changes. An engine no longer bound (the catalogue changed) is disposed only after the longest a
 * job may still be running on it, so a change never cuts a generation off mid-request.
 */
@Injectable()
export class ModelEngines implements OnApplicationShutdown {
  private readonly logger = new Logger(ModelEngines.name);
  private readonly built = new Map<string, ResolvedEngine>();
  private readonly retiring = new Set<NodeJS.Timeout>();

  constructor(
    @Inject(ENGINE_KINDS) private readonly kinds: ReadonlyMap<string, EngineKind>,
    @Inject(PROVIDER_CONTEXT) private readonly context: ProviderContext,
    @Inject(GENERATION_SETTINGS) private readonly settings: GenerationSettings,
  ) {}

  /** The provider label of an engine kind (`demo` for the built-in ones); the kind's name if it is unknown. */
  providerOf(kind: string): string {
    return this.kinds.get(kind)?.provider ?? kind;
  }

  resolve(model: ModelDefinition): ResolvedEngine {
    const key = bindingKey(model);
    let resolved = this.built.get(key);
    if (!resolved) {
      resolved = this.build(model);
      this.built.set(key, resolved);
    }
    if (resolved.engine) {
      const reason = resolved.engine.unavailableReason?.() ?? null;
      if (reason) return { engine: null, unavailable: reason };
    }
    return resolved;
  }

  /** Forgets the engines of bindings no longer in the catalogue; disposes them once no job can use them. */
  retain(models: readonly ModelDefinition[]): void {
    const keep = new Set(models.map(bindingKey));
    const dropped: Engine[] = [];
    for (const [key, resolved] of this.built) {
      if (keep.has(key)) continue;
      this.built.delete(key);
      if (resolved.engine) dropped.push(resolved.engine);
    }
    const inUse = new Set([...this.built.values()].map((r) => r.engine));
    const toDispose = [...new Set(dropped)].filter((engine) => !inUse.has(engine) && engine.dispose);
    if (toDispose.length === 0) return;
    const timer = setTimeout(() => {
      this.retiring.delete(timer);
      void this.dispose(toDispose);
    }, this.settings.engineTimeoutMs + 5_000);
    timer.unref();
    this.retiring.add(timer);
  }

  async onApplicationShutdown(): Promise<void> {
    for (const timer of this.retiring) clearTimeout(timer);
    this.retiring.clear();
    const engines = [...this.built.values()].flatMap((r) => (r.engine ? [r.engine] : []));
    this.built.clear();
    await this.dispose([...new Set(engines)]);
  }

  private build(model: ModelDefinition): ResolvedEngine {
    const kind = this.kinds.get(model.engine);
    if (!kind) return { engine: null, unavailable: `This model's engine "${model.engine}" is not installed on this server.` };
    try {
      return { engine: kind.create(model.id, model.params, this.context), unavailable: null };
    } catch (error) {
      this.logger.error({ err: error, model: model.id, engine: model.engine }, 'Could not build the engine of a model');
      return { engine: null, unavailable: 'This model is misconfigured on this server.' };
    }
  }

  private async dispose(engines: Engine[]): Promise<void> {
    await Promise.allSettled(engines.map((engine) => engine.dispose?.() ?? Promise.resolve()));
  }
}

/** Each definition's key, made once: a definition is never changed, a catalogue change brings new ones. */
const bindingKeys = new WeakMap<ModelDefinition, string>();

/** Models with the same id and binding share an engine (and its connection pool). */
function bindingKey(model: ModelDefinition): string {
  let key = bindingKeys.get(model);
  if (key === undefined) {
    key = `${model.id}\u0000${model.engine}\u0000${stableJson(model.params)}`;
    bindingKeys.set(model, key);
  }
  return key;
}

