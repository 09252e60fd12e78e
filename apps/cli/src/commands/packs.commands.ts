import { CommandGroup, req, str } from '../context/command-spec';
import { withGatewayServices } from '../context/gateway-context';
import { parseInteger } from '../context/option-parsers';

/** Credit packs customers buy through Stripe Checkout (docs/operations/payments.md, "Packs and prices"). */
export const PACKS: CommandGroup = {
  name: 'packs',
  summary: 'Define the credit packs customers buy on the Billing page.',
  commands: {
    set: {
      summary: 'Create or change a credit pack (a price in the currency\'s smallest unit: cents).',
      options: {
        id: { description: 'pack id: lowercase letters, digits, - and _ (e.g. starter)', required: true },
        name: { description: 'the name customers see', required: true },
        credits: { description: 'credits the pack grants', required: true },
        price: { description: "price in the currency's smallest unit, e.g. 500 for $5.00", required: true },
        currency: { description: 'three-letter ISO code, lowercase (default usd)' },
        retire: { description: 'take the pack off sale (purchases made keep it)', flag: true },
      },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ payments }) => {
          const pack = await payments.savePack({
            id: req(o, 'id'),
            name: req(o, 'name'),
            credits: parseInteger('credits', str(o, 'credits')),
            unitAmount: parseInteger('price', str(o, 'price')),
            currency: str(o, 'currency') ?? 'usd',
            active: o.retire !== true,
          });
          out(`Pack ${pack.id}: ${pack.credits} credits for ${pack.unitAmount} ${pack.currency}${pack.active ? '' : ' (retired)'}`, pack);
        }),
    },
    list: {
      summary: 'List the credit packs, retired ones included.',
      options: {},
      run: (_o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ payments }) => {
          const packs = await payments.listPacks();
          out(packs.map((p) => `${p.id.padEnd(16)} ${String(p.credits).padStart(10)} credits  ${p.unitAmount} ${p.currency}${p.active ? '' : '  (retired)'}  ${p.name}`).join('\n') || '(no packs)', packs);
        }),
    },
  },
};
