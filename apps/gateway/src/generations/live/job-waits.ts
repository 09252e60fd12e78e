import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Broadcasts, GenerationChangedBroadcast, GenerationRecord } from '@gen/contracts';
import { Broadcaster } from '@gen/transport';

export const isFinalRecord = (record: GenerationRecord) => record.status === 'completed' || record.status === 'failed';

/** One wait on a job: resolves with its final record when any replica announces it. */
export interface JobWait {
  final: Promise<GenerationRecord>;
  stop(): void;
}

/**
 * Sync submits wait on their job, not on the replica that took them: the `generation.changed`
 * broadcast every replica's outbox relay sends for each final state (the one the live status streams
 * use) resolves the wait of whichever gateway holds the request, whichever replica ran the job (one
 * that took over from a replica that died included).
 */
@Injectable()
export class JobWaits implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly byJob = new Map<string, Set<(record: GenerationRecord) => void>>();
  private unsubscribe?: () => void;

  constructor(private readonly broadcaster: Broadcaster) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.broadcaster.subscribe(Broadcasts.generationChanged, (payload) => {
      const record = (payload as GenerationChangedBroadcast | null)?.record;
      if (!record || typeof record.id !== 'string' || !isFinalRecord(record)) return;
      for (const resolve of this.byJob.get(record.id) ?? []) resolve(record);
    });
  }

  onApplicationShutdown(): void {
    this.unsubscribe?.();
  }

  /** Starts listening for the job's final state (before the submit is sent, so that none is missed). */
  watch(jobId: string): JobWait {
    let resolve!: (record: GenerationRecord) => void;
    const final = new Promise<GenerationRecord>((r) => (resolve = r));
    const listener = (record: GenerationRecord) => resolve(record);
    let set = this.byJob.get(jobId);
    if (!set) this.byJob.set(jobId, (set = new Set()));
    set.add(listener);
    return {
      final,
      stop: () => {
        set.delete(listener);
        if (set.size === 0 && this.byJob.get(jobId) === set) this.byJob.delete(jobId);
      },
    };
  }

  /** Jobs waited on now (tests). */
  size(): number {
    return this.byJob.size;
  }
}
