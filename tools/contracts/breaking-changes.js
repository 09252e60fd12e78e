// The breaking-change rules of the NATS message contract (docs/design/messages.md, "What breaks"):
// compares two AsyncAPI 3.0 documents as plain objects (the previous release's snapshot and HEAD's)
// and returns one line per change a reader or a sender of the other version would trip on.
// @asyncapi/diff 0.5.0 leaves AsyncAPI 3.0 schema changes unclassified and cannot tell a request from
// a reply, hence these rules of our own. Used by check.mjs and test/ops/message-contract.spec.ts.
'use strict';

/**
 * What a change to a message means depends on who reads it. `input`: the receiver validates it, and a
 * sender of the other version writes it (requests; events and broadcasts, checked on receipt), so it
 * must not narrow. `output`: a reader relies on what it carries (replies; events and broadcasts), so
 * it must not lose or loosen anything.
 */
const ROLES = {
  request: { input: true, output: false },
  reply: { input: false, output: true },
  event: { input: true, output: true },
  broadcast: { input: true, output: true },
};

const WHY = {
  'removed-subject': 'the subject is gone while the previous release sends it; keep it beside its new versioned subject',
  'removed-operation': 'a sender or receiver of the subject is gone',
  'removed-message': 'the message is gone from the subject',
  'removed-field': 'a field a reader of the previous release reads is gone',
  'new-required-field': 'a new field must be optional with a default (senders of the previous release do not send it)',
  'optional-to-required': 'senders of the previous release may leave it out',
  'type-changed': 'the type changed; add a field or a versioned subject instead',
  'null-refused': 'null is no longer accepted; senders of the previous release may send it',
  'enum-value-removed': 'a value senders of the previous release may send is refused',
  'narrowed': 'a value senders of the previous release may send is refused',
  'required-to-optional': 'readers of the previous release rely on it being there',
  'may-be-null': 'readers of the previous release do not expect null',
  'enum-value-added': 'readers of the previous release refuse or do not know the value',
};

/** One line per breaking change from `before` to `after`: `<subject> <message>: <field>: <rule>: <why>`. */
function breakingChanges(before, after) {
  const problems = [];
  const report = (where, rule, detail) => problems.push(`${where}: ${rule}: ${detail ? `${detail}; ` : ''}${WHY[rule]}`);
  const now = channelsByAddress(after);
  for (const [address, { id, channel }] of channelsByAddress(before)) {
    const subject = channel.title ?? address;
    const next = now.get(address);
    const request = 'request' in (channel.messages ?? {});
    if (!next) {
      // A request no service of the previous release sends can go: its v2 replaced it a release ago.
      if (!request || operationsOf(before, id).has('send')) report(subject, 'removed-subject', `channel ${address}`);
      continue;
    }
    for (const [role, message] of Object.entries(channel.messages ?? {})) {
      const nextMessage = next.channel.messages?.[role];
      if (!nextMessage) report(`${subject} ${role}`, 'removed-message');
      else compare(payload(before, message), payload(after, nextMessage), { before, after, role, where: `${subject} ${role}`, path: '', report, depth: 0 });
    }
    for (const [action, services] of operationsOf(before, id)) {
      // A service that stops sending a request breaks no receiver; one that stops publishing an event
      // or broadcast does (its consumers wait for it), as does one that stops answering or consuming.
      if (request && action === 'send') continue;
      const kept = operationsOf(after, next.id).get(action) ?? [];
      const gone = services.filter((service) => !kept.includes(service));
      if (gone.length > 0) report(`${subject} ${action}`, 'removed-operation', gone.join(', '));
    }
  }
  return problems;
}

function channelsByAddress(document) {
  return new Map(Object.entries(document.channels ?? {}).map(([id, channel]) => [channel.address ?? id, { id, channel }]));
}

/** The services of each action on a channel (from the operations' tags), e.g. send: [gateway]. */
function operationsOf(document, channelId) {
  const actions = new Map();
  for (const operation of Object.values(document.operations ?? {})) {
    if (operation.channel?.$ref !== `#/channels/${channelId}`) continue;
    const services = (operation.tags ?? []).map((tag) => tag.name);
    actions.set(operation.action, [...(actions.get(operation.action) ?? []), ...(services.length > 0 ? services : ['(any)'])]);
  }
  return actions;
}

function payload(document, message) {
  return resolve(document, resolve(document, message).payload ?? {});
}

/** Follows local `$ref`s (`#/components/...`). */
function resolve(document, node) {
  let at = node;
  for (let hops = 0; at && typeof at.$ref === 'string'; hops++) {
    if (hops > 32 || !at.$ref.startsWith('#/')) throw new Error(`cannot resolve ${at.$ref}`);
    at = at.$ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((parent, key) => parent?.[key], document);
  }
  return at ?? {};
}

/** A schema's types without null, and whether null is allowed (`type: [x, "null"]`, a null enum value, or `oneOf` with null). */
function shapeOf(document, schema) {
  const resolved = resolve(document, schema);
  const branches = resolved.oneOf?.map((branch) => resolve(document, branch));
  if (branches) {
    const others = branches.filter((branch) => branch.type !== 'null');
    return { ...shapeOf(document, others.length === 1 ? others[0] : {}), nullable: others.length < branches.length };
  }
  const types = resolved.type === undefined ? [] : [resolved.type].flat();
  const values = resolved.enum;
  return {
    schema: resolved,
    types: types.filter((type) => type !== 'null').sort(),
    nullable: types.includes('null') || (Array.isArray(values) && values.includes(null)),
    values: Array.isArray(values) ? values.filter((value) => value !== null) : undefined,
  };
}

function compare(beforeSchema, afterSchema, context) {
  const { role, report } = context;
  const { input, output } = ROLES[role] ?? ROLES.event;
  const old = shapeOf(context.before, beforeSchema);
  const now = shapeOf(context.after, afterSchema);
  // A schema that nests itself would recurse for ever; no payload is this deep.
  if ((context.depth ?? 0) > 16) return;
  const where = `${context.where}: ${context.path || '(payload)'}`;
  if (old.types.length > 0 && now.types.length > 0 && old.types.join() !== now.types.join()) report(where, 'type-changed', `${old.types.join('|')} to ${now.types.join('|')}`);
  else if (input && old.types.length === 0 && now.types.length > 0) report(where, 'narrowed', `now only ${now.types.join('|')}`);
  if (input && old.nullable && !now.nullable) report(where, 'null-refused');
  if (output && !old.nullable && now.nullable) report(where, 'may-be-null');
  const oldValues = old.values;
  const newValues = now.values;
  if (input && newValues && !oldValues) report(where, 'narrowed', `now one of ${newValues.join(', ')}`);
  if (input && oldValues && newValues) for (const value of oldValues.filter((v) => !newValues.includes(v))) report(where, 'enum-value-removed', JSON.stringify(value));
  if (output && oldValues && newValues) for (const value of newValues.filter((v) => !oldValues.includes(v))) report(where, 'enum-value-added', JSON.stringify(value));
  if (input) narrowedRules(old.schema, now.schema, where, report);
  fields(old.schema, now.schema, context, input, output);
  for (const part of ['items', 'additionalProperties', 'propertyNames']) {
    const [a, b] = [old.schema[part], now.schema[part]];
    if (a && b && typeof a === 'object' && typeof b === 'object') compare(a, b, { ...context, depth: context.depth + 1, path: `${context.path}${part === 'items' ? '[]' : `{${part}}`}` });
  }
}

/** Formats and patterns added or changed, and bounds that tighten (input only). */
function narrowedRules(old, now, where, report) {
  for (const rule of ['format', 'pattern', 'const']) {
    if (now[rule] !== undefined && now[rule] !== old[rule]) report(where, 'narrowed', `${rule} ${JSON.stringify(now[rule])} (was ${JSON.stringify(old[rule] ?? 'none')})`);
  }
  for (const bound of ['minimum', 'minLength', 'minItems', 'exclusiveMinimum']) {
    if (now[bound] !== undefined && (old[bound] === undefined || now[bound] > old[bound])) report(where, 'narrowed', `${bound} ${now[bound]} (was ${old[bound] ?? 'none'})`);
  }
  for (const bound of ['maximum', 'maxLength', 'maxItems', 'exclusiveMaximum']) {
    if (now[bound] !== undefined && (old[bound] === undefined || now[bound] < old[bound])) report(where, 'narrowed', `${bound} ${now[bound]} (was ${old[bound] ?? 'none'})`);
  }
}

function fields(old, now, context, input, output) {
  const oldProperties = old.properties ?? {};
  const newProperties = now.properties ?? {};
  const wasRequired = new Set(old.required ?? []);
  const isRequired = new Set(now.required ?? []);
  const at = (name) => (context.path ? `${context.path}.${name}` : name);
  for (const name of Object.keys(oldProperties)) {
    if (!(name in newProperties)) context.report(`${context.where}: ${at(name)}`, 'removed-field');
    else compare(oldProperties[name], newProperties[name], { ...context, depth: context.depth + 1, path: at(name) });
  }
  for (const name of Object.keys(newProperties)) {
    const where = `${context.where}: ${at(name)}`;
    if (input && isRequired.has(name) && !wasRequired.has(name)) context.report(where, name in oldProperties ? 'optional-to-required' : 'new-required-field');
    if (output && wasRequired.has(name) && !isRequired.has(name)) context.report(where, 'required-to-optional');
  }
}

module.exports = { breakingChanges, RULES: Object.keys(WHY) };
