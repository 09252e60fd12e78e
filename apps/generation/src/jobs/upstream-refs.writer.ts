import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { BatchQueue, isRefusedValue } from '@gen/persistence';
import { UpstreamRef, UpstreamRefsRepository } from './upstream-refs.repository';

/**
 * Group commit of upstream references: every provider job stores one right after its submit, and a
 * burst of submits would otherwise pay one synchronous commit (a WAL flush) each.
 */
@Injectable()
export class UpstreamRefsWriter implements OnModuleDestroy {
  private readonly queue: BatchQueue<UpstreamRef, boolean>;

  constructor(repository: UpstreamRefsRepository) {
    this.queue = new BatchQueue((items) => repository.saveMany(items), { maxBatch: 500, isolate: isRefusedValue });
  }

  /** Stores the job's upstream reference; false when `owner` no longer holds the job. */
  save(jobId: string, owner: string, ref: string): Promise<boolean> {
    return this.queue.push({ jobId, owner, ref });
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue.drain();
  }
}
