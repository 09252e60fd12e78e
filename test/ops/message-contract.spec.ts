import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageContract } from '@gen/contracts';
import { parse } from 'yaml';
import { breakingChanges } from '../../tools/contracts/breaking-changes';

// Edits reach deep into a plain document: `any` keeps each one a line.
type Node = { [key: string]: any };

const ROOT = join(__dirname, '..', '..');
const base = messageContract() as Node;

/** The breaking changes of a copy of today's document after `change`. */
function after(change: (document: Node) => void): string[] {
  const copy = structuredClone(base);
  change(copy);
  return breakingChanges(base, copy);
}

const schema = (document: Node, name: string): Node => document.components.schemas[name];

/** A v2 of generation.submit beside v1: its own channel, message, schema (with a new required field) and operations. */
function addSubmitV2(document: Node): void {
  const v1 = document.channels.generation_submit;
  document.components.schemas.SubmitGenerationRequestV2 = structuredClone(schema(document, 'SubmitGenerationRequest'));
  const v2Schema = schema(document, 'SubmitGenerationRequestV2');
  v2Schema.properties.priority = { type: 'integer' };
  v2Schema.required.push('priority');
  document.components.messages.SubmitGenerationRequestV2 = { name: 'SubmitGenerationRequestV2', payload: { $ref: '#/components/schemas/SubmitGenerationRequestV2' } };
  document.channels.generation_submit_v2 = {
    ...structuredClone(v1),
    address: '{prefix}rpc.generation.submit.v2',
    title: 'generation.submit.v2',
    messages: { ...v1.messages, request: { $ref: '#/components/messages/SubmitGenerationRequestV2' } },
  };
  for (const action of ['send', 'receive']) {
    const operation = structuredClone(document.operations[`generation_submit.${action}`]);
    operation.channel = { $ref: '#/channels/generation_submit_v2' };
    document.operations[`generation_submit_v2.${action}`] = operation;
  }
}

describe('the message contract breaking-change check (tools/contracts/breaking-changes.js)', () => {
  it('passes HEAD against the released contract 1.0.0 (release/contracts/1.0.0.asyncapi.yaml)', () => {
    const released = parse(readFileSync(join(ROOT, 'release', 'contracts', '1.0.0.asyncapi.yaml'), 'utf8')) as Node;
    expect(breakingChanges(released, base)).toEqual([]);
  });

  it('fails a reply that loses a field, naming the subject, the field and the rule', () => {
    const changes = after((d) => delete schema(d, 'ReserveCreditsReplyPayload').properties.available);
    expect(changes).toEqual([expect.stringMatching(/^billing\.reserve reply: available: removed-field: /)]);
  });

  it('fails a request that gains a required field', () => {
    const changes = after((d) => {
      schema(d, 'SubmitGenerationRequest').properties.priority = { type: 'integer' };
      schema(d, 'SubmitGenerationRequest').required.push('priority');
    });
    expect(changes).toEqual([expect.stringMatching(/^generation\.submit request: priority: new-required-field: a new field must be optional with a default/)]);
  });

  it('fails an enum that loses a value', () => {
    const changes = after((d) => schema(d, 'OpenBillingAccountRequest').properties.plan.enum.pop());
    expect(changes).toEqual([expect.stringMatching(/^billing\.account\.open request: plan: enum-value-removed: "enterprise"/)]);
  });

  it('fails a type that changes', () => {
    const changes = after((d) => (schema(d, 'ReserveCreditsRequest').properties.amount = { type: 'string' }));
    expect(changes).toEqual([expect.stringMatching(/^billing\.reserve request: amount: type-changed: number to string/)]);
  });

  it('fails a subject that disappears while the previous release sends it', () => {
    const changes = after((d) => delete d.channels.generation_submit);
    expect(changes).toEqual([expect.stringMatching(/^generation\.submit: removed-subject: channel \{prefix\}rpc\.generation\.submit/)]);
  });

  it('fails the other narrowings of a request: optional to required, a format or pattern added, a bound tightened, null refused', () => {
    const changes = after((d) => {
      schema(d, 'ListGenerationsRequest').required.push('cursor');
      schema(d, 'SetKeyCapsRequest').properties.keyId.pattern = '^key_';
      schema(d, 'ProviderCallbackRequest').properties.token.maxLength = 64;
      schema(d, 'SubmitGenerationRequest').properties.webhookUrl = { type: 'string', format: 'uri' };
    });
    expect(changes).toEqual([
      expect.stringMatching(/^billing\.key-caps\.set request: keyId: narrowed: pattern "\^key_"/),
      expect.stringMatching(/^generation\.submit request: webhookUrl: null-refused/),
      expect.stringMatching(/^generation\.submit request: webhookUrl: narrowed: format "uri"/),
      expect.stringMatching(/^generation\.list request: cursor: optional-to-required/),
      expect.stringMatching(/^generation\.provider-callback request: token: narrowed: maxLength 64 \(was 128\)/),
    ]);
  });

  it('fails what readers rely on loosening: a reply field turned optional or nullable, an event enum with a new value', () => {
    const changes = after((d) => {
      schema(d, 'LedgerReplyPayload').required = ['data'];
      schema(d, 'BalanceReplyPayload').properties.available = { type: ['number', 'null'] };
      schema(d, 'GenerationFinishedEvent').properties.event.enum.push('generation.canceled');
    });
    expect(changes).toEqual([
      expect.stringMatching(/^billing\.balance reply: available: may-be-null/),
      expect.stringMatching(/^billing\.account\.open reply: available: may-be-null/),
      expect.stringMatching(/^billing\.ledger reply: next_cursor: required-to-optional/),
      expect.stringMatching(/^generation\.completed event: event: enum-value-added: "generation\.canceled"/),
      expect.stringMatching(/^generation\.failed event: event: enum-value-added: "generation\.canceled"/),
    ]);
  });

  it('finds a change in a nested schema under every subject that carries it', () => {
    const changes = after((d) => delete schema(d, 'GenerationRecordPayload').properties.progress);
    expect(changes.map((line) => line.split(': ').slice(0, 2).join(': '))).toEqual([
      'generation.submit reply: record.progress',
      'generation.batch.results reply: data[].generation.progress',
      'generation.get reply: progress',
      'generation.list reply: data[].progress',
      'generation.cancel reply: record.progress',
      'generation.completed event: record.progress',
      'generation.failed event: record.progress',
      'generation.changed broadcast: record.progress',
    ]);
  });

  it('passes compatible additions: optional fields, a new enum value in a request, a new subject', () => {
    const changes = after((d) => {
      schema(d, 'ReserveCreditsRequest').properties.priority = { type: 'integer' };
      schema(d, 'ReserveCreditsReplyPayload').properties.expiresAt = { type: 'string', format: 'date-time' };
      schema(d, 'ReserveCreditsReplyPayload').required.push('expiresAt');
      schema(d, 'ListGenerationsRequest').properties.status.enum.push('canceled');
      d.channels.billing_refund = { ...structuredClone(d.channels.billing_release), address: '{prefix}rpc.billing.refund', title: 'billing.refund' };
    });
    expect(changes).toEqual([]);
  });

  it('passes a request subject no service of the previous release sends going, or a service that stops sending a request', () => {
    expect(after((d) => delete d.channels.models_get)).toEqual([]);
    expect(after((d) => delete d.operations['billing_reserve.send'])).toEqual([]);
  });

  it('fails a publisher that stops publishing an event, and a service that stops answering', () => {
    expect(after((d) => delete d.operations['generation_completed.send'])).toEqual([expect.stringMatching(/^generation\.completed send: removed-operation: generation/)]);
    expect(after((d) => delete d.operations['billing_reserve.receive'])).toEqual([expect.stringMatching(/^billing\.reserve receive: removed-operation: billing/)]);
  });

  it('passes a v2 subject served beside v1, and fails it once v1 is gone', () => {
    expect(after(addSubmitV2)).toEqual([]);
    const replaced = after((d) => {
      addSubmitV2(d);
      delete d.channels.generation_submit;
    });
    expect(replaced).toEqual([expect.stringMatching(/^generation\.submit: removed-subject/)]);
  });
});
