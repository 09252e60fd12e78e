import { operatorActor } from '@gen/gateway';
import { CommandGroup, req, str } from '../context/command-spec';
import { withGatewayServices } from '../context/gateway-context';
import { parseInteger } from '../context/option-parsers';

/** Credits: grants and removals, kept in the ledger and the audit log. */
export const CREDITS: CommandGroup = {
  name: 'credits',
  summary: "Change an account's credits.",
  commands: {
    grant: {
      summary: 'Add credits (or remove them with a negative amount).',
      options: {
        account: { description: 'account id', required: true },
        amount: { description: 'integer, may be negative', required: true },
        note: { description: 'reason, kept in the ledger' },
      },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ billing, audit }) => {
          const account = req(o, 'account');
          const amount = parseInteger('amount', str(o, 'amount'));
          const note = str(o, 'note') ?? 'operator grant';
          const available = await billing.adjust(account, amount, note);
          await audit.record({ accountId: account, actor: operatorActor(), action: 'account.credits_changed', target: account, details: { amount, note, available } });
          out(`Available credits: ${available}`, { available });
        }),
    },
  },
};
