import type { MessageHandler } from '@nestjs/microservices';
import { BaseRpcContext } from '@nestjs/microservices';
import { isObservable, lastValueFrom } from 'rxjs';

/**
 * Runs every handler registered for one event pattern (Nest chains them through `.next`) and
 * resolves only when all succeeded, so the caller can acknowledge the event; rejects with the first
 * failure so it is redelivered. Handlers must be idempotent: a redelivery reaches all of them again.
 */
export async function runEventHandlers(head: MessageHandler | undefined, data: unknown, pattern: string): Promise<void> {
  let handler: MessageHandler | undefined = head;
  const context = new BaseRpcContext([pattern]);
  while (handler) {
    const result: unknown = await handler(data, context);
    if (isObservable(result)) await lastValueFrom(result, { defaultValue: undefined });
    handler = handler.next;
  }
}

/** Unwraps a reply that may be a value, a promise or an observable into its last value. */
export function settleReply(result: unknown): Promise<unknown> {
  // Nest's handlers return a promise (of a value, or of an observable when a filter answered).
  return Promise.resolve(result).then(unwrapObservable);
}

function unwrapObservable(value: unknown): unknown {
  return isObservable(value) ? lastValueFrom(value, { defaultValue: undefined }) : value;
}
