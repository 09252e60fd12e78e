import { ValidationError } from '@gen/errors';
import { CommandGroup, req, str } from '../context/command-spec';
import { withGatewayServices } from '../context/gateway-context';
import { parseInteger } from '../context/option-parsers';

/** The audit log of an account, as the dashboard shows it. */
export const AUDIT: CommandGroup = {
  name: 'audit',
  summary: "Read an account's audit log.",
  commands: {
    list: {
      summary: "List an account's audit log, newest first: who (user or operator), when, from which address, did what.",
      options: {
        account: { description: 'account id', required: true },
        actor: { description: 'only entries of this actor (an email, or an operator name)' },
        action: { description: 'only this action, e.g. key.revoked, user.sign_in_failed (docs/guide/dashboard.md, "Audit log")' },
        limit: { description: 'at most this many (default 50, max 1000)' },
      },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ provisioning, audit }) => {
          await provisioning.requireAccount(req(o, 'account'));
          const limit = parseInteger('limit', str(o, 'limit'), 50);
          if (limit < 1 || limit > 1000) throw new ValidationError('--limit must be between 1 and 1000');
          const page = await audit.page(req(o, 'account'), { actor: str(o, 'actor'), action: str(o, 'action'), limit });
          const line = (e: (typeof page.data)[number]) =>
            `${e.at}  ${e.action.padEnd(24)} ${e.actor_kind === 'operator' ? `operator ${e.actor}` : e.actor}${e.ip ? ` (${e.ip})` : ''}${e.target ? `  on ${e.target}` : ''}`;
          out(page.data.map(line).join('\n') || '(no entries)', page.data);
        }),
    },
  },
};
