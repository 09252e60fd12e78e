import { ValidationError } from '@gen/errors';
import { operatorActor, toKeyView } from '@gen/gateway';
import { CommandGroup, OptionSpec, req, str } from '../context/command-spec';
import { withGatewayServices } from '../context/gateway-context';
import { parseCap, parseDuration } from '../context/option-parsers';

const ACCOUNT: OptionSpec = { description: 'account id', required: true };
const KEY: OptionSpec = { description: 'key id', required: true };

/**
 * API keys: create, list, revoke, their webhook URL, signing secret and scheme, and spending caps.
 * Every change is recorded in the account's audit log as the operator's (the OS user running the CLI).
 */
export const KEYS: CommandGroup = {
  name: 'keys',
  summary: "Create, list and revoke API keys; set their webhooks, signing secrets and spending caps.",
  commands: {
    create: {
      summary: 'Create an API key for an account (printed once).',
      options: { account: ACCOUNT, name: { description: 'key name', required: true }, scopes: { description: 'comma-separated: generate,read (default both)' } },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ keys, audit }) => {
          const scopes = (str(o, 'scopes') ?? 'generate,read').split(',').map((s) => s.trim()) as Array<'generate' | 'read'>;
          const key = await keys.create(req(o, 'account'), req(o, 'name'), scopes);
          await audit.record({ accountId: req(o, 'account'), actor: operatorActor(), action: 'key.created', target: key.id, details: { name: key.name, scopes: key.scopes } });
          out(`Key ${key.id} (${key.name}, scopes ${key.scopes.join(',')})\nAPI key (shown only now): ${key.key}`, key);
        }),
    },
    list: {
      summary: "List an account's keys, with each one's default webhook URL and whether it has a signing secret.",
      options: { account: ACCOUNT },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ provisioning, keys }) => {
          await provisioning.requireAccount(req(o, 'account'));
          const list = (await keys.list(req(o, 'account'))).map(toKeyView);
          const line = (k: (typeof list)[number]) =>
            `${k.id}  ${k.prefix}...${k.last4}  ${k.status.padEnd(7)} ${k.name}` + `\n    webhook: ${k.webhook_url ?? 'none'}; signing secret: ${k.has_webhook_secret ? 'yes' : 'none'}`;
          out(list.map(line).join('\n') || '(no keys)', list);
        }),
    },
    secret: {
      summary:
        "Generate a key's webhook signing secret, or renew it (printed once; signatures with the old one fail at once); " +
        'with --overlap, a key on the standard scheme rotates instead: both secrets sign each delivery for that long.',
      options: {
        account: ACCOUNT,
        key: KEY,
        overlap: { description: 'standard scheme only: how long the old secret keeps signing too, 1s to 24h (e.g. 30m, 2h)' },
      },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: true }, async ({ keys, keyWebhooks, audit }) => {
          const overlap = parseDuration('overlap', str(o, 'overlap'));
          const before = await keys.get(req(o, 'account'), req(o, 'key'));
          const { key, webhookSecret } = await keyWebhooks.renewSecret(req(o, 'account'), req(o, 'key'), overlap);
          const view = toKeyView(key);
          const action = overlap !== undefined ? 'key.secret_rotated' : before.webhookSecret ? 'key.secret_renewed' : 'key.secret_generated';
          const details = overlap !== undefined ? { name: key.name, overlap_seconds: overlap } : { name: key.name };
          await audit.record({ accountId: key.accountId, actor: operatorActor(), action, target: key.id, details });
          out(
            [
              view.previous_secret_until
                ? `Key ${view.id} (${view.name}): new webhook signing secret, shown only now (deliveries carry signatures with both secrets until ${view.previous_secret_until}, then with this one only):`
                : `Key ${view.id} (${view.name}): webhook signing secret, shown only now (signatures with any earlier secret fail from now on):`,
              webhookSecret as string,
            ].join('\n'),
            { key: view, webhook_secret: webhookSecret },
          );
        }),
    },
    'set-webhook-scheme': {
      summary:
        "Choose how a key's webhooks are signed: service (X-Service-* headers, the default) or standard (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature).",
      options: { account: ACCOUNT, key: KEY, scheme: { description: 'standard or service', required: true } },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ keyWebhooks, audit }) => {
          const key = await keyWebhooks.setScheme(req(o, 'account'), req(o, 'key'), req(o, 'scheme'));
          const view = toKeyView(key);
          await audit.record({ accountId: key.accountId, actor: operatorActor(), action: 'key.webhook_scheme_set', target: key.id, details: { name: key.name, scheme: view.webhook_scheme } });
          out(
            view.webhook_scheme === 'standard'
              ? `Key ${view.id} (${view.name}): webhooks signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature), with the same secret`
              : `Key ${view.id} (${view.name}): webhooks signed with the X-Service-* headers`,
            view,
          );
        }),
    },
    'set-webhook-url': {
      summary: "Set a key's default webhook URL (checked as the dashboard checks it; generates the signing secret if none), or remove it with --url ''.",
      options: {
        account: ACCOUNT,
        key: KEY,
        url: { description: "https URL (http and private addresses only where WEBHOOK_ALLOW_* allow them); '' removes it", required: true },
      },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: true }, async ({ keyWebhooks, audit }) => {
          const actor = operatorActor();
          const { key, webhookSecret } = await keyWebhooks.setUrl(req(o, 'account'), req(o, 'key'), str(o, 'url') ?? null);
          const view = toKeyView(key);
          await audit.record({ accountId: key.accountId, actor, action: 'key.webhook_url_set', target: key.id, details: { name: key.name, webhook_url: key.webhookUrl } });
          if (webhookSecret) await audit.record({ accountId: key.accountId, actor, action: 'key.secret_generated', target: key.id, details: { name: key.name } });
          const secretLines = webhookSecret
            ? ['Its webhook signing secret was generated, shown only now:', webhookSecret]
            : view.has_webhook_secret
              ? ['It keeps its signing secret (keys secret renews it).']
              : [];
          out(
            [view.webhook_url ? `Key ${view.id} (${view.name}): default webhook URL ${view.webhook_url}` : `Key ${view.id} (${view.name}): no default webhook URL`, ...secretLines].join('\n'),
            { key: view, webhook_secret: webhookSecret },
          );
        }),
    },
    revoke: {
      summary: 'Revoke a key: 401 at once on every gateway told over NATS (NATS_URL set), else within 10 s (their key cache).',
      options: { account: ACCOUNT, key: KEY },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ keys, audit }) => {
          await keys.revoke(req(o, 'account'), req(o, 'key'));
          const key = await keys.get(req(o, 'account'), req(o, 'key'));
          await audit.record({ accountId: key.accountId, actor: operatorActor(), action: 'key.revoked', target: key.id, details: { name: key.name } });
          out('Revoked.', { revoked: true });
        }),
    },
    'set-cap': {
      summary: "Set a key's spending caps in credits per UTC day and per UTC month: a submit whose hold would pass one is refused (402 spending_cap_reached).",
      options: {
        account: ACCOUNT,
        key: KEY,
        'per-day': { description: "credits per UTC day, a whole number from 1; 'none' removes the cap; omitted keeps it" },
        'per-month': { description: "credits per UTC month, a whole number from 1; 'none' removes the cap; omitted keeps it" },
      },
      run: (o, { database, out }) =>
        withGatewayServices(database, { webhooks: false }, async ({ keys, caps, audit }) => {
          const [perDay, perMonth] = [parseCap('per-day', str(o, 'per-day')), parseCap('per-month', str(o, 'per-month'))];
          if (perDay === undefined && perMonth === undefined) throw new ValidationError('Nothing to change: give --per-day, --per-month or both (none removes a cap)');
          const key = await keys.get(req(o, 'account'), req(o, 'key')); // not found unless the account's key
          const view = await caps.set({ accountId: key.accountId, keyId: key.id, perDay, perMonth });
          await audit.record({ accountId: key.accountId, actor: operatorActor(), action: 'key.caps_set', target: key.id, details: { name: key.name, per_day: view.per_day, per_month: view.per_month } });
          const cap = (value: number | null, spent: number, period: string) => `${value === null ? 'no cap' : `${value} credits`} per ${period} (spent ${spent})`;
          out(`Key ${key.id} (${key.name}): ${cap(view.per_day, view.spent_today, 'day')}; ${cap(view.per_month, view.spent_this_month, 'month')}; UTC`, view);
        }),
    },
  },
};
