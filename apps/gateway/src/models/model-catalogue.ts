import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit, Optional } from '@nestjs/common';
import { Broadcasts, DatabaseChannels, ListModelsReply, ModelInfo, Subjects } from '@gen/contracts';
import { PgNotifications } from '@gen/persistence';
import { Broadcaster, RpcClient } from '@gen/transport';
import { GATEWAY_SETTINGS, GatewaySettings } from '../settings/gateway.tokens';
import { withRpcRetries } from '../rpc/rpc-retries';

/** The catalogue as one read gave it. */
export interface CatalogueCopy {
  models: ReadonlyMap<string, ModelInfo>;
  /** ListModelsReply.version: sent with each submit (one catalogue for the hold, the admission, the charge). */
  version: string | undefined;
  /** When the read that produced it started (local clock): it is no older than this. */
  readAt: number;
}

/** A read in progress; `stale` once a change was announced after it started (its answer is then not kept). */
interface Read {
  promise: Promise<CatalogueCopy>;
  stale: boolean;
}

/**
 * This gateway's copy of the model catalogue. Dropped at once when a change is announced, by the
 * `generation.catalogue-changed` broadcast or by the database itself (NOTIFY on
 * `gen_catalogue_changed`, sent at the writer's commit, whoever the writer), so the next request
 * reads it again. Should both fail to arrive, a copy is never served more than
 * CATALOGUE_MAX_STALE_MS after its read started: past that the request waits for a fresh read (one
 * RPC, bounded by its timeout, then `503`). Under steady traffic the copy is read again in the
 * background once half that age is reached, so no request waits.
 */
@Injectable()
export class ModelCatalogue implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ModelCatalogue.name);
  private copy?: CatalogueCopy;
  private reading?: Read;
  private readonly unsubscribes: Array<() => void> = [];

  constructor(
    private readonly rpc: RpcClient,
    private readonly broadcaster: Broadcaster,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Optional() @Inject(PgNotifications) private readonly notifications: PgNotifications | null = null,
  ) {}

  onModuleInit(): void {
    this.unsubscribes.push(this.broadcaster.subscribe(Broadcasts.catalogueChanged, () => this.invalidate()));
    if (this.notifications) {
      this.unsubscribes.push(this.notifications.listen(DatabaseChannels.catalogueChanged, () => this.invalidate()));
      this.unsubscribes.push(this.notifications.onResync(() => this.invalidate()));
    }
  }

  onModuleDestroy(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
  }

  /** The catalogue, no older than CATALOGUE_MAX_STALE_MS and read after the last change announced here. */
  current(): Promise<CatalogueCopy> {
    const copy = this.copy;
    const maxStaleMs = this.settings.catalogueMaxStaleMs;
    if (copy) {
      const age = Date.now() - copy.readAt;
      if (age < maxStaleMs) {
        if (age >= maxStaleMs / 2 && !this.reading) {
          this.read().catch((error: unknown) => this.logger.warn({ err: error }, 'Reading the model catalogue ahead failed; the copy serves until it is too old'));
        }
        return Promise.resolve(copy);
      }
    }
    return this.read();
  }

  /** Forgets the copy (a change was announced): the next request reads the catalogue again. */
  invalidate(): void {
    this.copy = undefined;
    if (this.reading) this.reading.stale = true;
    this.reading = undefined;
  }

  private read(): Promise<CatalogueCopy> {
    if (this.reading) return this.reading.promise;
    const readAt = Date.now();
    const read: Read = { stale: false, promise: Promise.resolve(undefined as never) };
    read.promise = withRpcRetries(() => this.rpc.request<ListModelsReply>(Subjects.modelsList, {})).then(
      (reply) => {
        const copy: CatalogueCopy = { models: new Map(reply.data.map((m) => [m.id, m])), version: reply.version, readAt };
        if (!read.stale) {
          this.copy = copy;
          this.reading = undefined;
        }
        return copy;
      },
      (error: unknown) => {
        if (this.reading === read) this.reading = undefined;
        throw error;
      },
    );
    this.reading = read;
    return read.promise;
  }
}
