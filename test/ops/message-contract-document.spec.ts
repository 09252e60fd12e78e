import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Broadcasts, Events, HealthSubjects, MESSAGE_CONTRACT_VERSION, MESSAGE_PARTIES, messageContract, Subjects } from '@gen/contracts';
import { parse } from 'yaml';
import { OUTPUT, toYaml } from '../../tools/contracts/generate';

type Node = { [key: string]: unknown };
const ROOT = join(__dirname, '..', '..');
const REGENERATE = 'run `npm run contracts:generate` and commit docs/design/messages.asyncapi.yaml';

/** `node` with its local `$ref`s replaced by what they point at (a depth bound stops a self-nesting schema). */
function expanded(document: Node, node: unknown, depth = 0): unknown {
  if (depth > 20 || typeof node !== 'object' || node === null) return node;
  if (Array.isArray(node)) return node.map((item) => expanded(document, item, depth + 1));
  const ref = (node as Node).$ref;
  if (typeof ref === 'string') return expanded(document, ref.slice(2).split('/').reduce<unknown>((at, key) => (at as Node | undefined)?.[key], document), depth + 1);
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, expanded(document, value, depth + 1)]));
}

/** Each subject whose channel (messages and schemas expanded) or operations differ between the two documents. */
function subjectsThatDiffer(committed: Node, generated: Node): string[] {
  const view = (document: Node, id: string) => {
    const operations = Object.values((document.operations ?? {}) as Record<string, Node>).filter((op) => (op.channel as Node | undefined)?.$ref === `#/channels/${id}`);
    return JSON.stringify(expanded(document, { channel: (document.channels as Node)[id], operations }));
  };
  const ids = new Set([...Object.keys(committed.channels as Node), ...Object.keys(generated.channels as Node)]);
  const title = (id: string) => (((generated.channels as Node)[id] ?? (committed.channels as Node)[id]) as Node).title as string;
  return [...ids].filter((id) => !(id in (committed.channels as Node)) || !(id in (generated.channels as Node)) || view(committed, id) !== view(generated, id)).map(title);
}

describe('the message contract document (docs/design/messages.asyncapi.yaml)', () => {
  const generated = messageContract();
  const committedText = readFileSync(OUTPUT, 'utf8');

  it('is what the payload classes generate', () => {
    const differ = subjectsThatDiffer(parse(committedText) as Node, generated);
    expect({ subjectsThatDiffer: differ, fix: REGENERATE }).toEqual({ subjectsThatDiffer: [], fix: REGENERATE });
    // Anything else (info, components no channel uses, the header, formatting).
    expect(committedText === toYaml(generated) ? 'same' : `the document differs outside its channels: ${REGENERATE}`).toBe('same');
  });

  it('names the differing subject when a class changes', () => {
    const changed = messageContract() as Node;
    const schemas = (changed.components as Node).schemas as Record<string, Node>;
    (schemas.ReserveCreditsReplyPayload.properties as Node).added = { type: 'string' };
    expect(subjectsThatDiffer(generated, changed)).toEqual(['billing.reserve']);
  });

  it('has a channel for every subject, health ping, event and broadcast, at its wire address with the prefix', () => {
    const channels = Object.values(generated.channels as Record<string, Node>);
    const titles = channels.map((channel) => channel.title);
    const expected = [...Object.values(Subjects), ...Object.values(HealthSubjects), ...new Set(Object.values(Events)), ...Object.values(Broadcasts)];
    expect([...titles].sort()).toEqual([...expected].sort());
    for (const channel of channels) expect(channel.address).toMatch(new RegExp(`^\\{prefix\\}(rpc|events|broadcast)\\.${String(channel.title).replace(/\./g, '\\.')}$`));
    expect((generated.info as Node).version).toBe(MESSAGE_CONTRACT_VERSION);
  });

  it('says which fields are required, with enums and formats, from the decorators', () => {
    const schemas = (generated.components as Node).schemas as Record<string, Node>;
    expect(schemas.ReserveCreditsRequest.required).toEqual(['accountId', 'jobId', 'modelId', 'amount', 'minimum']);
    expect((schemas.OpenBillingAccountRequest.properties as Node).plan).toEqual({ type: 'string', enum: ['free', 'lite', 'pro', 'enterprise'] });
    expect((schemas.AccountLowBalanceEvent.properties as Node).crossedAt).toEqual({ type: 'string', format: 'date-time' });
    expect((schemas.SubmitGenerationRequest.properties as Node).webhookUrl).toEqual({ type: ['string', 'null'] });
    expect((schemas.LedgerReplyPayload.properties as Node).next_cursor).toEqual({ type: ['string', 'null'] });
    expect(schemas.LedgerReplyPayload.required).toEqual(['data', 'next_cursor']);
    expect((schemas.LedgerReplyPayload.properties as Node).data).toEqual({ type: 'array', items: { $ref: '#/components/schemas/LedgerEntryViewPayload' } });
  });
});

/** The apps' TypeScript sources (not specs), by app. */
function sourcesOf(app: string): string {
  const read = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return read(path);
      return name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(name) ? [readFileSync(path, 'utf8')] : [];
    });
  return read(join(ROOT, 'apps', app, 'src')).join('\n');
}

describe('MESSAGE_PARTIES (who sends and receives each subject)', () => {
  const constants: Record<string, string> = {};
  for (const [group, table] of Object.entries({ Subjects, Events, Broadcasts })) for (const [key, subject] of Object.entries(table)) constants[subject] = `${group}.${key}`;
  const apps = ['gateway', 'billing', 'generation', 'webhooks', 'cli'];
  const sources = Object.fromEntries(apps.map((app) => [app, sourcesOf(app)]));

  it.each(Object.keys(MESSAGE_PARTIES))('%s: every app whose code names it is listed as a sender or a receiver', (subject) => {
    const { from, to } = MESSAGE_PARTIES[subject as keyof typeof MESSAGE_PARTIES];
    const naming = apps.filter((app) => new RegExp(`\\b${constants[subject].replace('.', '\\.')}\\b`).test(sources[app]));
    expect(naming.filter((app) => !([...from, ...to] as string[]).includes(app))).toEqual([]);
  });
});
