import { Injectable } from '@nestjs/common';
import { BatchQueue } from '@gen/persistence';
import { JobReadsRepository, JobWithPosition } from './job-reads.repository';

interface Wanted {
  accountId: string;
  jobId: string;
}

/**
 * The record a submit answers with, read back right after its admission: concurrent submits share
 * one statement instead of two round trips each (the job, then its queue position).
 */
@Injectable()
export class SubmittedJobsReader {
  private readonly queue: BatchQueue<Wanted, JobWithPosition | null>;

  constructor(repository: JobReadsRepository) {
    this.queue = new BatchQueue(async (items) => {
      const found = await repository.findManyWithPositions(items);
      return items.map((item) => found.get(item.jobId.toLowerCase()) ?? null);
    }, { maxBatch: 500 });
  }

  /** The account's job with its queue position, or null when the account has no such job. */
  read(accountId: string, jobId: string): Promise<JobWithPosition | null> {
    return this.queue.push({ accountId, jobId });
  }
}
