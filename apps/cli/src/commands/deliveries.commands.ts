import { ValidationError } from '@gen/errors';
import { DeliveriesAdminModule, DeliveriesAdminService, openWebhooksDatabase } from '@gen/webhooks';
import { withNestContext } from '../context/cli-context';
import { CommandGroup, str } from '../context/command-spec';
import { parseInteger, parseSince } from '../context/option-parsers';

/** Webhook deliveries: queue redeliveries of failed ones; the running webhooks service sends them. */
export const DELIVERIES: CommandGroup = {
  name: 'deliveries',
  summary: 'Send failed webhooks again.',
  commands: {
    retry: {
      summary: 'Send again every webhook whose latest delivery failed since a time (after an endpoint is fixed).',
      options: {
        since: { description: 'failed at or after this: an ISO 8601 time, or a duration ago (90m, 2h, 1d)', required: true },
        account: { description: 'only this account id' },
        limit: { description: 'at most this many generations (default 500, max 10000)' },
        'dry-run': { description: 'list what would be sent, send nothing', flag: true },
      },
      run: async (o, { database, out }) => {
        const since = parseSince(str(o, 'since'));
        const limit = parseInteger('limit', str(o, 'limit'), 500);
        if (limit < 1 || limit > 10_000) throw new ValidationError('--limit must be between 1 and 10000');
        const dryRun = o['dry-run'] === true;
        await withNestContext(
          [openWebhooksDatabase(database.url, 2, 'verify')],
          ([webhooks]) => [DeliveriesAdminModule.register(webhooks)],
          async (app) => {
            // To the generation's own destination, as a customer's redeliver: nothing to ask the keys.
            const outcomes = await app.get(DeliveriesAdminService).retryFailedSince(since, { accountId: str(o, 'account'), limit, dryRun });
            const count = (status: string) => outcomes.filter((r) => r.status === status).length;
            const lines = outcomes.map((r) => `${r.job_id}  ${r.status.padEnd(11)} ${r.destination}${r.reason ? `  (${r.reason})` : ''}`);
            lines.push(
              dryRun
                ? `${count('would_queue')} delivery(ies) would be queued (dry run; nothing sent).`
                : `${count('queued')} redelivery(ies) queued since ${since.toISOString()}, ${count('skipped')} skipped; the webhooks service sends them within seconds.`,
            );
            out(lines.join('\n'), { since: since.toISOString(), deliveries: outcomes });
          },
        );
      },
    },
  },
};
