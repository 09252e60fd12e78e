import { Logger } from '@nestjs/common';
import { Counter, Histogram } from 'prom-client';
import { MetricsRegistry, QUEUE_BUCKETS, scrapeGauges, secondsBetween } from '@gen/observability';
import { QueueStatsRepository } from './queue-stats.repository';

/** What the metrics read of a job (a JobEntity): metrics sit below the job runtime and do not import it. */
export type MeasuredJob = { type: string; status: string; attempts: number; createdAt: Date; startedAt: Date | null; completedAt: Date | null };

/**
 * The generation service's metrics. Counters and histograms count what this process did; the
 * gauges of jobs by state, queue depth and outbox backlog are read from the database at scrape time,
 * so every replica reports the same numbers (aggregate them with max(), not sum()).
 */
export class JobMetrics {
  private readonly logger = new Logger(JobMetrics.name);
  private readonly finishedTotal: Counter<'status' | 'type'>;
  private readonly claimedTotal: Counter<'type'>;
  private readonly requeuedTotal: Counter;
  private readonly handedBackTotal: Counter;
  private readonly queueWait: Histogram<'type'>;
  private readonly runDuration: Histogram<'status' | 'type'>;

  constructor(metrics: MetricsRegistry, stats: QueueStatsRepository) {
    const registers = [metrics.registry];
    this.claimedTotal = new Counter({ name: 'gen_jobs_claimed_total', help: 'Jobs claimed by this worker', labelNames: ['type'], registers });
    this.finishedTotal = new Counter({
      name: 'gen_jobs_finished_total',
      help: 'Jobs finished by this process, by final state (completed, failed) and type',
      labelNames: ['status', 'type'],
      registers,
    });
    this.requeuedTotal = new Counter({
      name: 'gen_jobs_requeued_total',
      help: 'Jobs requeued after their worker stopped heart-beating (lease expired)',
      registers,
    });
    this.handedBackTotal = new Counter({
      name: 'gen_jobs_handed_back_total',
      help: 'Jobs this process gave back to the queue while shutting down',
      registers,
    });
    this.queueWait = new Histogram({
      name: 'gen_job_queue_wait_seconds',
      help: 'Time from submission to the first claim by a worker',
      labelNames: ['type'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.runDuration = new Histogram({
      name: 'gen_job_run_duration_seconds',
      help: 'Time from the start of processing to the final state',
      labelNames: ['status', 'type'],
      buckets: QUEUE_BUCKETS,
      registers,
    });

    // One query per scrape feeds every gauge below.
    scrapeGauges(metrics, {
      read: () => stats.read(),
      gauges: {
        jobs: { name: 'gen_jobs', help: 'Jobs not yet final, by state (queued, processing)', labelNames: ['state'] },
        oldest: { name: 'gen_job_queue_oldest_age_seconds', help: 'Age of the oldest queued job' },
        expired: { name: 'gen_jobs_expired_leases', help: 'Processing jobs whose lease has expired' },
        outbox: { name: 'gen_outbox_pending', help: 'Events written but not yet published' },
        outboxAge: { name: 'gen_outbox_oldest_age_seconds', help: 'Age of the oldest unpublished event' },
      },
      update: (s, gauges) => {
        gauges.jobs.set({ state: 'queued' }, s.queued);
        gauges.jobs.set({ state: 'processing' }, s.processing);
        gauges.oldest.set(s.oldestQueuedSeconds);
        gauges.expired.set(s.expiredLeases);
        gauges.outbox.set(s.outboxPending);
        gauges.outboxAge.set(s.oldestOutboxSeconds);
      },
      onError: (error) => this.logger.warn({ err: error }, 'Queue statistics unavailable for this scrape'),
    });
  }

  claimed(job: MeasuredJob): void {
    this.claimedTotal.inc({ type: job.type });
    // The first claim measures the queue wait; a retry after a lost worker would count it twice.
    if (job.attempts <= 1) this.queueWait.observe({ type: job.type }, secondsBetween(job.createdAt));
  }

  finished(job: MeasuredJob): void {
    this.finishedTotal.inc({ status: job.status, type: job.type });
    if (job.startedAt && job.completedAt) {
      this.runDuration.observe({ status: job.status, type: job.type }, secondsBetween(job.startedAt, new Date(job.completedAt)));
    }
  }

  requeued(): void {
    this.requeuedTotal.inc();
  }

  handedBack(_job: MeasuredJob): void {
    this.handedBackTotal.inc();
  }
}
