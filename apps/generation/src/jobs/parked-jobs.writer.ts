import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { BatchQueue } from '@gen/persistence';
import { Park, ParkedJobsRepository } from './parked-jobs.repository';

/** Group commit of parks: they arrive one job at a time (each submit, each check) and are written together. */
@Injectable()
export class ParkedJobsWriter implements OnModuleDestroy {
  private readonly parks: BatchQueue<Park, boolean>;

  constructor(private readonly repository: ParkedJobsRepository) {
    this.parks = new BatchQueue((items) => this.repository.parkBatch(items), { maxBatch: 500 });
  }

  /** Parks the job; false when its worker no longer holds it (canceled meanwhile, or taken over). */
  park(item: Park): Promise<boolean> {
    return this.parks.push(item);
  }

  /** Waits for every queued park to be written (before the DataSource closes). */
  async onModuleDestroy(): Promise<void> {
    await this.parks.drain();
  }
}
