import { HealthSubjects, SERVICE_NAMES } from '../shared/health';
import { MESSAGE_CONTRACT_VERSION } from '../messages/contract-version';
import { HealthPingReplyPayload, HealthPingRequest } from '../messages/health.payloads';
import { Broadcast, BROADCAST_PAYLOADS, PAYLOAD_CLASSES, PayloadClass, Subject } from '../messages/payload-classes';
import { REPLY_CLASSES } from '../messages/reply-classes';
import { Broadcasts, EventName, Events, Subjects } from '../messages/subjects';
import { JsonSchema, SchemaSet } from './json-schema';
import { MESSAGE_PARTIES, Parties, Party } from './parties';

/**
 * The NATS message contract as an AsyncAPI 3.0 document (docs/design/messages.asyncapi.yaml),
 * built from the classes the transport validates messages with: `npm run contracts:generate`
 * writes it, and a spec fails when the committed file differs (docs/design/messages.md).
 */

type Kind = 'request' | 'event' | 'broadcast';

interface Entry {
  subject: string;
  kind: Kind;
  payload: PayloadClass;
  reply?: PayloadClass;
  parties: Parties;
}

/** What each kind of message travels as on NATS (libs/transport, nats.config.ts and broadcaster.ts). */
const WIRE: Record<Kind, { token: string; says: string }> = {
  request: { token: 'rpc.', says: 'Request/reply on core NATS, queue group per service: one replica answers.' },
  event: { token: 'events.', says: 'Durable event on JetStream (the outbox relays it; each consumer has its own durable consumer).' },
  broadcast: { token: 'broadcast.', says: 'Broadcast on core NATS without a queue group: every replica that listens gets it. A hint; never the only way a fact travels.' },
};

/** A broadcast that carries nothing (BROADCAST_PAYLOADS' null) is an empty object on the wire. */
class EmptyBroadcast {}

const DESCRIPTION = `The messages the four services (gateway, billing, generation, webhooks) exchange over NATS,
generated from the class-validator classes in libs/contracts/src/messages (npm run contracts:generate);
the rules for changing them are in docs/design/messages.md and CONTRIBUTING.md, "Messages".

Subjects: each channel's title is the subject as the code names it (libs/contracts, subjects.ts and
health.ts). On the wire it gets a prefix: the deployment's NATS_SUBJECT_PREFIX (empty by default; a
token and a dot, so several deployments share one NATS) and the kind of message: \`rpc.\` for a request,
\`events.\` for an event, \`broadcast.\` for a broadcast. The channel's address is that wire subject.

Framing: a request travels as {"pattern", "data", "id"}, the payload under \`data\`; its reply as
{"id", "response" | "err", "isDisposed"}, the reply payload under \`response\`. A request that fails is
answered with \`err\`, the error envelope {"code", "status", "message", "retryAfterSeconds"?}; one whose
payload is not its class is answered 422 validation_error before any handler runs. Events and
broadcasts are the payload itself. Fields not listed here are allowed and kept: readers are tolerant.`;

export function messageContract(): JsonSchema {
  const schemas = new SchemaSet();
  const messages: Record<string, JsonSchema> = {};
  const channels: Record<string, JsonSchema> = {};
  const operations: Record<string, JsonSchema> = {};
  const message = (shape: PayloadClass): JsonSchema => {
    messages[shape.name] ??= { name: shape.name, title: shape.name, payload: schemas.ref(shape) };
    return { $ref: `#/components/messages/${shape.name}` };
  };
  for (const entry of entries()) {
    const id = channelId(entry.subject);
    if (channels[id]) throw new Error(`Two subjects make the channel id ${id}`);
    const role = entry.kind === 'request' ? 'request' : entry.kind;
    channels[id] = {
      address: `{prefix}${WIRE[entry.kind].token}${entry.subject}`,
      title: entry.subject,
      description: [WIRE[entry.kind].says, entry.parties.note].filter(Boolean).join(' '),
      messages: { [role]: message(entry.payload), ...(entry.reply && { reply: message(entry.reply) }) },
      parameters: { prefix: { $ref: '#/components/parameters/prefix' } },
    };
    const channel = { $ref: `#/channels/${id}` };
    const sent = [{ $ref: `#/channels/${id}/messages/${role}` }];
    const reply = entry.reply && { channel, messages: [{ $ref: `#/channels/${id}/messages/reply` }] };
    const operation = (action: 'send' | 'receive', services: readonly Party[]): JsonSchema => ({
      action,
      channel,
      title: `${services.join(', ')} ${action === 'send' ? 'sends' : entry.kind === 'request' ? 'answers' : 'receives'} ${entry.subject}`,
      tags: services.map((name) => ({ name })),
      messages: sent,
      ...(reply && { reply }),
    });
    if (entry.parties.from.length > 0) operations[`${id}.send`] = operation('send', entry.parties.from);
    operations[`${id}.receive`] = operation('receive', entry.parties.to);
  }
  return {
    asyncapi: '3.0.0',
    info: { title: 'Generation Service messages', version: MESSAGE_CONTRACT_VERSION, description: DESCRIPTION },
    defaultContentType: 'application/json',
    servers: {
      nats: { host: '127.0.0.1:4222', protocol: 'nats', description: 'NATS_URL of the deployment (JetStream enabled for events).' },
    },
    channels,
    operations,
    components: {
      parameters: { prefix: { description: 'NATS_SUBJECT_PREFIX: empty, or a token and a dot (`t1a2b3.`).' } },
      messages: sortedByKey(messages),
      schemas: sortedByKey(Object.fromEntries(schemas.schemas)),
    },
  };
}

/** Every subject once: requests (health pings too), events, broadcasts, in the order the code lists them. */
function entries(): Entry[] {
  const requests = Object.values(Subjects).map((subject: Subject) => ({
    subject,
    kind: 'request' as const,
    payload: PAYLOAD_CLASSES[subject],
    reply: REPLY_CLASSES[subject],
    parties: MESSAGE_PARTIES[subject],
  }));
  const pings = SERVICE_NAMES.map((service) => ({
    subject: HealthSubjects[service],
    kind: 'request' as const,
    payload: HealthPingRequest,
    reply: HealthPingReplyPayload,
    parties: { from: ['gateway'], to: [service], note: "The gateway's readiness (and standalone's) asks each service; the transport does not check pings." } satisfies Parties,
  }));
  const events = [...new Set(Object.values(Events))].map((subject: EventName) => ({
    subject,
    kind: 'event' as const,
    payload: PAYLOAD_CLASSES[subject],
    parties: MESSAGE_PARTIES[subject],
  }));
  const broadcasts = Object.values(Broadcasts).map((subject: Broadcast) => ({
    subject,
    kind: 'broadcast' as const,
    payload: BROADCAST_PAYLOADS[subject].payload ?? EmptyBroadcast,
    parties: MESSAGE_PARTIES[subject],
  }));
  return [...requests, ...pings, ...events, ...broadcasts];
}

/** A channel's key: its subject with each run of other characters as `_` (keys allow letters, digits, `_` and `-`). */
export function channelId(subject: string): string {
  return subject.replace(/[^A-Za-z0-9-]+/g, '_');
}

function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
