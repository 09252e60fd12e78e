import { PLANS } from '@gen/contracts';
import { ConflictError, ValidationError } from '@gen/errors';
import { operatorActor } from '@gen/gateway';
import { CommandGroup, req, str } from '../context/command-spec';
import { withGatewayServices } from '../context/gateway-context';
import { parseInteger, parsePlan } from '../context/option-parsers';

/** Billing's balance as the CLI shows it: the account is already named by `id` (or `account_id`). */
export function withoutAccountId<T extends { accountId: string }>(balance: T): Omit<T, 'accountId'> {
  const { accountId: _accountId, ...rest } = balance;
  return rest;
}

/** `--credits`: a whole number from 0, or `none`; 0 and none turn alerts off. */
export function parseThreshold(value: string | undefined): number | null {
  if (value !== undefined && value.trim() === 'none') return null;
  const credits = parseInteger('credits', value);
  if (credits < 0) throw new ValidationError('--credits must be a whole number from 0 (0 or none turns alerts off)');
  return credits;
}

/** Accounts: create (with the first key, and a dashboard sign-in on request), list, the low-balance alert. */
export const ACCOUNTS: CommandGroup = {
  name: 'accounts',
  summary: 'Create and list accounts; set their low-balance alert.',
  commands: {
    create: {
      summary: 'Create an account with a plan and credits, and its first API key (printed once).',
      options: {
        name: { description: 'account name', required: true },
        plan: { description: `plan: ${PLANS.join(', ')} (default free)` },
        credits: { description: 'opening credits (default 0)' },
        'key-name': { description: 'name of the first key (default "default")' },
        email: { description: 'also a dashboard sign-in for this email, with a generated password (printed once)' },
      },
      mayCreateData: true,
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ provisioning, billing, keys, audit }) => {
          const actor = operatorActor();
          const name = req(o, 'name');
          const plan = parsePlan(str(o, 'plan'), 'free');
          const credits = parseInteger('credits', str(o, 'credits'), 0);
          const email = str(o, 'email');
          let signIn: { email: string; password: string } | null = null;
          let accountId: string;
          if (email !== undefined) {
            const created = await provisioning.createAccountWithSignIn(name, email, plan, credits);
            if (!created) throw new ConflictError(`${email.trim()} already has a dashboard account.`);
            ({ accountId } = created);
            signIn = { email: created.email, password: created.password };
          } else {
            ({ accountId } = await provisioning.createAccount(name, plan, credits));
          }
          const balance = await billing.balance(accountId);
          const key = await keys.create(accountId, str(o, 'key-name') ?? 'default');
          await audit.record({ accountId, actor, action: 'account.created', target: accountId, details: { name: name.trim(), plan, credits, email: signIn?.email ?? null } });
          await audit.record({ accountId, actor, action: 'key.created', target: key.id, details: { name: key.name, scopes: key.scopes } });
          out(
            [
              `Account ${accountId} (${name.trim()}): plan ${balance.plan}, ${balance.available} credits`,
              `API key (shown only now): ${key.key}`,
              ...(signIn ? [`Dashboard sign-in (password shown only now): ${signIn.email}  ${signIn.password}`] : []),
            ].join('\n'),
            { account_id: accountId, name: name.trim(), balance: withoutAccountId(balance), api_key: key, dashboard: signIn },
          );
        }),
    },
    list: {
      summary: 'List accounts with plan and balance.',
      options: {},
      run: (_o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ provisioning, billing }) => {
          const accounts = await provisioning.listAccounts();
          const rows = await Promise.all(
            accounts.map(async (a) => ({ id: a.id, name: a.name, created_at: a.createdAt, ...withoutAccountId(await billing.balance(a.id)) })),
          );
          out(rows.map((r) => `${r.id}  ${r.plan.padEnd(10)} available ${r.available}  held ${r.held}  ${r.name}`).join('\n') || '(no accounts)', rows);
        }),
    },
    show: {
      summary: "Show an account: plan, limits, balance, and its Stripe customer when it pays through Stripe.",
      options: { account: { description: 'account id', required: true } },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ billing, payments }) => {
          const account = req(o, 'account');
          const balance = withoutAccountId(await billing.balance(account));
          const stripe = await payments.stripeStatus(account);
          const shown = { id: account, ...balance, stripe };
          out(
            [
              `Account ${account}: plan ${balance.plan} (${balance.limits.requests_per_minute} rpm, ${balance.limits.parallel_tasks} parallel tasks)`,
              `Credits: available ${balance.available}, held ${balance.held}`,
              `Stripe customer: ${stripe.customer_id ?? 'none'}`,
              `Stripe subscription: ${
                stripe.subscription
                  ? `${stripe.subscription.subscription_id} (${stripe.subscription.plan}, ${stripe.subscription.status}` +
                    `${stripe.subscription.downgrade_at ? `, moves to ${stripe.subscription.plan} on ${stripe.subscription.downgrade_at}` : ''}` +
                    `${stripe.subscription.grace_until ? `, unpaid: Free after ${stripe.subscription.grace_until}` : ''})`
                  : 'none'
              }`,
              ...(stripe.restriction ? [`Restricted: ${stripe.restriction}`] : []),
            ].join('\n'),
            shown,
          );
        }),
    },
    unrestrict: {
      summary: 'Lift the restriction a refund of spent credits or a disputed payment put on an account (its submits work again).',
      options: { account: { description: 'account id', required: true }, note: { description: 'why, kept in the audit log' } },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ payments, audit }) => {
          const account = req(o, 'account');
          const lifted = await payments.liftRestriction(account);
          if (!lifted) throw new ConflictError(`Account ${account} is not restricted.`);
          await audit.record({ accountId: account, actor: operatorActor(), action: 'account.restriction_lifted', target: account, details: { note: str(o, 'note') ?? null } });
          out(`Account ${account}: restriction lifted`, { account, lifted });
        }),
    },
    'set-low-balance': {
      summary:
        "Set an account's low-balance alert threshold: when its available credits fall below it, its owners get a mail and its keys' webhook URLs an account.low_balance event (once per crossing).",
      options: {
        account: { description: 'account id', required: true },
        credits: { description: "the threshold in credits, a whole number from 0; 0 or 'none' turns alerts off", required: true },
      },
      // Billing checks the bounds; the change is audited as the operator's.
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ lowBalance }) => {
          const account = req(o, 'account');
          const view = await lowBalance.set(account, parseThreshold(str(o, 'credits')), operatorActor());
          out(
            view.threshold === null
              ? `Account ${account}: low-balance alerts off (available ${view.available})`
              : `Account ${account}: alert when available credits fall below ${view.threshold} (available now ${view.available})`,
            view,
          );
        }),
    },
  },
};
