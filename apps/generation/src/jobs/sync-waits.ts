import { Injectable } from '@nestjs/common';
import { EventEmitter } from 'node:events';
import { PeriodicTask } from '@gen/observability';
import type { JobEntity } from './job.entity';
import { JobReadsRepository } from './job-reads.repository';

/** Emitted once shutdown has finished or handed back every job of this process. */
const DRAINED = Symbol('drained');
/** How often a waiter reads the row of a job another replica may be running. */
const POLL_MS = 250;

/**
 * The synchronous submit's wait for its job to finish: answered at once when a run of this process
 * finishes it (the finisher wakes it), by reading the row now and then when another replica runs it,
 * and with the job as it stands when this process shuts down.
 */
@Injectable()
export class SyncWaits {
  private readonly finished = new EventEmitter();
  private drained = false;

  constructor(private readonly jobs: JobReadsRepository) {
    this.finished.setMaxListeners(0);
  }

  /** A synchronous submit on this process waits for the job now. */
  isAwaited(jobId: string): boolean {
    return this.finished.listenerCount(jobId) > 0;
  }

  /** A job finished by this process: its waiters are answered with it. */
  wake(job: JobEntity): void {
    this.finished.emit(job.id, job);
  }

  /** Shutdown finished or handed back every run of this process: each waiter is answered with its job as it stands. */
  drain(): void {
    this.drained = true;
    this.finished.emit(DRAINED);
  }

  /**
   * Resolves with the job once it is final (finished anywhere) within `ms`; null if it is not by then.
   * `runsHere`: a run of this process has it, which reports its end itself (the row is not read at once).
   */
  wait(jobId: string, ms: number, runsHere: boolean): Promise<JobEntity | null> {
    const finalJob = async () => {
      const job = await this.jobs.findById(jobId);
      return job !== null && (job.status === 'completed' || job.status === 'failed') ? job : null;
    };
    return new Promise<JobEntity | null>((resolve) => {
      let settled = false;
      const finish = (job: JobEntity | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        void poll.stop();
        this.finished.off(jobId, onLocal);
        this.finished.off(DRAINED, onDrained);
        resolve(job);
      };
      // Listen before looking, so a run of this process that ends in between is not missed.
      const onLocal = (job: JobEntity) => finish(job);
      // Shutting down: answer with the job as it stands (another replica runs it if it is not done).
      const onDrained = () => {
        finalJob().then(finish, () => finish(null));
      };
      this.finished.on(jobId, onLocal);
      this.finished.once(DRAINED, onDrained);
      if (this.drained) onDrained();
      const deadline = setTimeout(() => finish(null), ms);
      // Another replica may run it (or it was already final): look at the row now and then. A run of
      // this process reports its end itself, so the row is not read at once for it.
      const poll = new PeriodicTask({
        name: 'Synchronous wait',
        intervalMs: POLL_MS,
        runAtStart: !runsHere,
        run: async () => {
          const job = await finalJob();
          if (job) finish(job);
        },
        // A read that failed is made again at the next look.
        onError: () => undefined,
      });
      poll.start();
    });
  }
}
