import { INestApplicationContext } from '@nestjs/common';
import { BillingModule, BillingService, openBillingDatabase } from '@gen/billing';
import { JOB_STATUSES, JobStatus } from '@gen/contracts';
import { ValidationError } from '@gen/errors';
import { JobAdminModule, JobAdminService, JobInspection, openGenerationDatabase } from '@gen/generation';
import { withNestContext } from '../context/cli-context';
import { CliDatabase } from '../context/cli-database';
import { readCliOutputBaseUrl, readSettings } from '../context/cli.settings';
import { CommandGroup, req, str } from '../context/command-spec';
import { parseDuration, parseInteger } from '../context/option-parsers';

function jobLine(job: JobInspection['job']): string {
  const age = job.started_at ?? job.created_at;
  return `${job.id}  ${job.status.padEnd(10)} ${job.model_id.padEnd(16)} attempts ${job.attempts}  since ${new Date(age).toISOString()}  account ${job.account_id}`;
}

/** Job administration (generation's) with each job's credit hold (billing's), on the command's database. */
function withJobAdmin(database: CliDatabase, use: (admin: JobAdminService, withHold: (i: JobInspection) => Promise<JobInspection & { hold: Awaited<ReturnType<BillingService['holdForJob']>> }>) => Promise<void>) {
  const cdnBaseUrl = readSettings(readCliOutputBaseUrl);
  return withNestContext(
    [openGenerationDatabase(database.url, 2, 'verify'), openBillingDatabase(database.url, 2, 'verify')],
    ([generation, billing]) => [JobAdminModule.register(generation, { cdnBaseUrl }), BillingModule.register(billing, {}, { outboxRelay: false })],
    (app: INestApplicationContext) => {
      const billing = app.get(BillingService);
      return use(app.get(JobAdminService), async (inspection) => ({ ...inspection, hold: await billing.holdForJob(inspection.job.id) }));
    },
  );
}

/** Jobs across accounts: find stuck ones, look inside one, fail one with a refund. */
export const JOBS: CommandGroup = {
  name: 'jobs',
  summary: 'Find, inspect and fail jobs across accounts.',
  commands: {
    list: {
      summary: 'List jobs across accounts, oldest first (find stuck ones).',
      options: {
        status: { description: 'queued, processing, completed or failed' },
        'older-than': { description: 'in that state for longer than this: 90s, 15m, 2h, 1d (queued: since submit; processing: since start)' },
        account: { description: 'only this account id' },
        limit: { description: 'at most this many (default 50, max 1000)' },
      },
      run: (o, { database, out }) =>
        withJobAdmin(database, async (admin) => {
          const status = str(o, 'status');
          if (status !== undefined && !(JOB_STATUSES as readonly string[]).includes(status)) {
            throw new ValidationError(`--status must be one of ${JOB_STATUSES.join(', ')}`);
          }
          const limit = parseInteger('limit', str(o, 'limit'), 50);
          if (limit < 1 || limit > 1000) throw new ValidationError('--limit must be between 1 and 1000');
          const rows = await admin.list({ status: status as JobStatus | undefined, olderThanSeconds: parseDuration('older-than', str(o, 'older-than')), accountId: str(o, 'account'), limit });
          out(rows.map(jobLine).join('\n') || '(no jobs)', rows);
        }),
    },
    inspect: {
      summary: 'Show a job: state, attempts, lease, its events in the outbox and its credit hold.',
      options: { job: { description: 'job (generation) id', required: true } },
      run: (o, { database, out }) =>
        withJobAdmin(database, async (admin, withHold) => {
          const result = await withHold(await admin.inspect(req(o, 'job')));
          const job = result.job;
          out(
            [
              jobLine(job),
              `lease: ${job.lease_owner ?? 'none'}${job.lease_expires_at ? ` until ${new Date(job.lease_expires_at).toISOString()}` : ''}${result.leaseExpired ? ' (EXPIRED)' : ''}`,
              `error: ${job.error ?? '-'}`,
              `hold: ${result.hold ? `${result.hold.amount} credits, ${result.hold.status}` : 'none'}`,
              `events: ${result.events.map((e) => `${e.pattern} ${e.published_at ? 'published' : 'pending'}`).join(', ') || 'none'}`,
            ].join('\n'),
            result,
          );
        }),
    },
    fail: {
      summary: 'Fail a stuck queued or processing job; its credits are refunded through the generation.failed event.',
      options: {
        job: { description: 'job (generation) id', required: true },
        reason: { description: 'why, for the operator log (the customer sees a standard message)', required: true },
        force: { description: 'also when a worker still holds a live lease on it', flag: true },
      },
      run: (o, { database, out }) =>
        withJobAdmin(database, async (admin, withHold) => {
          const result = await withHold(await admin.fail(req(o, 'job'), { force: o.force === true }));
          out(
            [
              `Failed job ${result.job.id} (${req(o, 'reason')}).`,
              `Its generation.failed event is in the outbox; billing releases the ${result.hold?.amount ?? 0} held credits once the`,
              "generation service's relay publishes it (seconds, while a generation replica runs).",
            ].join('\n'),
            { ...result, reason: req(o, 'reason') },
          );
        }),
    },
  },
};
