import { Logger } from '@nestjs/common';
import { BROADCAST_PAYLOADS, BroadcastPayload, PAYLOAD_CLASSES, PayloadClass, quickCheck, validateShape } from '@gen/contracts';
import { toRpcErrorPayload, ValidationError, type RpcErrorPayload } from '@gen/errors';
import { Counter } from 'prom-client';

/**
 * Why the transport refused a message before any handler saw it (the `reason` label):
 * `invalid`: its payload is not its subject's class (PAYLOAD_CLASSES); `not_json`: it could not be decoded.
 */
export type RefusalReason = 'invalid' | 'not_json';

/** Most problems named in a refusal's message (a payload could fail on every field). */
const MAX_PROBLEMS = 5;

/**
 * The count of messages refused on receipt, by subject and reason: one per transport server (the
 * in-process bus, a NATS server), registered in the process's metrics by ObservabilityModule.
 */
export class MessageRefusals {
  private readonly log = new Logger('MessageRefusals');
  readonly counter = new Counter({
    name: 'gen_transport_messages_refused_total',
    help: 'Messages refused on receipt, before any handler: reason invalid (not the payload its subject takes) or not_json',
    labelNames: ['subject', 'reason'],
    // Registered by the application's MetricsRegistry, which does not exist yet when a server is made.
    registers: [],
  });

  count(subject: string, reason: RefusalReason, problems: readonly string[] = []): void {
    this.counter.inc({ subject, reason });
    this.log.warn({ subject, reason, problems: problems.slice(0, MAX_PROBLEMS) }, 'Refused a malformed message');
  }
}

/**
 * The problems of `data` as the payload of `pattern` (its class in PAYLOAD_CLASSES), or null when it
 * is one. A pattern without a class (a health ping, a bench's or a test's own) is not checked. Only
 * checked, never changed: the handler gets `data` as it came (fields it does not know included, so a
 * newer sender's additions pass through an older receiver).
 */
export function payloadProblems(pattern: string, data: unknown): string[] | null {
  const payload = (PAYLOAD_CLASSES as Readonly<Record<string, PayloadClass>>)[pattern];
  return payload ? problemsOf(payload, data) : null;
}

/** The same for a broadcast, with what to do when it is malformed (BROADCAST_PAYLOADS). */
export function broadcastProblems(topic: string, data: unknown): { problems: string[]; malformed: 'drop' | 'deliver' } | null {
  const entry = (BROADCAST_PAYLOADS as Readonly<Record<string, BroadcastPayload>>)[topic];
  if (!entry?.payload) return null;
  const problems = problemsOf(entry.payload, data);
  return problems && { problems, malformed: entry.malformed };
}

function problemsOf(payload: PayloadClass, data: unknown): string[] | null {
  // The class's rules compiled (quickCheck): a payload that plainly passes them is not checked again.
  if (quickCheck(payload)?.(data)) return null;
  const result = validateShape(payload, data);
  return result.ok ? null : result.problems;
}

/** The envelope a request with a malformed payload is answered with (422 `validation_error`). */
export function refusalEnvelope(pattern: string, problems: readonly string[]): RpcErrorPayload {
  const named = problems.slice(0, MAX_PROBLEMS).join('; ');
  const more = problems.length > MAX_PROBLEMS ? ` (and ${problems.length - MAX_PROBLEMS} more)` : '';
  return toRpcErrorPayload(new ValidationError(`Malformed ${pattern} message: ${named}${more}.`));
}
