import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Broadcasts, GenerationChangedBroadcast, GenerationRecord } from '@gen/contracts';
import { Broadcaster } from '@gen/transport';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../../settings/gateway.tokens';
import { isFinalRecord } from '../live/job-waits';

interface Entry {
  accountId: string;
  record: GenerationRecord;
}

/**
 * Finished generation records in memory, so a read of one is answered without a round trip to the
 * generation service: a completed or failed job never changes again (its output's expiry is in the
 * record; an expired output keeps its URL). Fed by the final-state broadcast every replica's relay
 * sends (`generation.changed`) and by final records read through `generation.get`. Only the
 * owner's account is answered from here: any other reads through, where it is a 404 as before.
 * Bounded: past FINISHED_RECORDS_MAX_ENTRIES the oldest remembered goes first.
 */
@Injectable()
export class FinishedRecords implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly byJob = new Map<string, Entry>();
  private readonly maxEntries: number;
  private unsubscribe?: () => void;

  constructor(
    private readonly broadcaster: Broadcaster,
    @Inject(GATEWAY_SETTINGS) settings: Pick<GatewaySettings, 'finishedRecordsMaxEntries'>,
  ) {
    this.maxEntries = settings.finishedRecordsMaxEntries;
  }

  onApplicationBootstrap(): void {
    this.unsubscribe = this.broadcaster.subscribe(Broadcasts.generationChanged, (payload) => {
      const changed = payload as GenerationChangedBroadcast | null;
      if (changed?.record) this.remember(changed.accountId, changed.record);
    });
  }

  onApplicationShutdown(): void {
    this.unsubscribe?.();
  }

  /** The job's final record if it is the account's and remembered here; undefined otherwise. */
  get(accountId: string, jobId: string): GenerationRecord | undefined {
    const entry = this.byJob.get(jobId);
    return entry?.accountId === accountId ? entry.record : undefined;
  }

  /** Keeps `record` if it is final (a record still moving is never kept). */
  remember(accountId: string, record: GenerationRecord): void {
    if (this.maxEntries === 0 || typeof accountId !== 'string' || typeof record.id !== 'string' || !isFinalRecord(record)) return;
    if (this.byJob.has(record.id)) return;
    this.byJob.set(record.id, { accountId, record });
    if (this.byJob.size > this.maxEntries) this.byJob.delete(this.byJob.keys().next().value as string);
  }

  /** Records held now (tests). */
  size(): number {
    return this.byJob.size;
  }
}
