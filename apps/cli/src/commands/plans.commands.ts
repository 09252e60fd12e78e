import { AccountChangedBroadcast, Broadcasts, PLANS } from '@gen/contracts';
import { operatorActor } from '@gen/gateway';
import { CommandGroup, req, str } from '../context/command-spec';
import { withGatewayServices } from '../context/gateway-context';
import { parseInteger, parsePlan } from '../context/option-parsers';

/** Plans: an account's plan and, for pro and enterprise, its limits; the gateways hear of it at once. */
export const PLANS_COMMANDS: CommandGroup = {
  name: 'plans',
  summary: "Change an account's plan and limits.",
  commands: {
    set: {
      summary: "Change an account's plan and, for pro/enterprise, its limits.",
      options: {
        account: { description: 'account id', required: true },
        plan: { description: PLANS.join(', '), required: true },
        rpm: { description: 'requests per minute (pro: 60-200)' },
        parallel: { description: 'parallel tasks (pro: 3-25)' },
      },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ billing, broadcaster, audit }) => {
          const account = req(o, 'account');
          const rpm = str(o, 'rpm') === undefined ? undefined : parseInteger('rpm', str(o, 'rpm'));
          const parallel = str(o, 'parallel') === undefined ? undefined : parseInteger('parallel', str(o, 'parallel'));
          const balance = await billing.setPlan(account, parsePlan(str(o, 'plan')), { rpm, parallel });
          await broadcaster.publishAndFlush(Broadcasts.accountChanged, { accountId: account } satisfies AccountChangedBroadcast);
          await audit.record({
            accountId: account,
            actor: operatorActor(),
            action: 'account.plan_changed',
            target: account,
            details: { plan: balance.plan, requests_per_minute: balance.limits.requests_per_minute, parallel_tasks: balance.limits.parallel_tasks },
          });
          out(`Plan ${balance.plan}: ${balance.limits.requests_per_minute} rpm, ${balance.limits.parallel_tasks} parallel tasks`, balance);
        }),
    },
    price: {
      summary: 'Sell a plan as a Stripe subscription at a Stripe Price (docs/operations/payments.md, "Subscriptions").',
      options: {
        plan: { description: 'lite, pro or enterprise', required: true },
        price: { description: 'the Stripe Price id (price_...), a recurring price', required: true },
      },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ subscriptions }) => {
          const mapped = await subscriptions.setPlanPrice(req(o, 'plan'), req(o, 'price'));
          out(`Plan ${mapped.plan} is sold at Stripe price ${mapped.priceId}`, mapped);
        }),
    },
    prices: {
      summary: 'List the plans sold as Stripe subscriptions and their prices.',
      options: {},
      run: (_o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ subscriptions }) => {
          const prices = await subscriptions.planPrices();
          out(prices.map((p) => `${p.plan.padEnd(12)} ${p.priceId}`).join('\n') || '(no plan is sold through Stripe)', prices);
        }),
    },
  },
};
