import { createInbox, Msg, NatsConnection, NatsError, Subscription } from 'nats';

/** Nothing subscribes to the request's subject (nats.js's code for it: 503). */
export class NoRespondersError extends Error {
  readonly code = '503';
  constructor(subject: string) {
    super(`no responders for ${subject}`);
  }
}

/** No answer within the request's timeout (nats.js's code for it). */
export class RequestTimeoutError extends Error {
  readonly code = 'TIMEOUT';
  constructor(subject: string, timeoutMs: number) {
    super(`no answer from ${subject} within ${timeoutMs} ms`);
  }
}

interface Waiting {
  subject: string;
  resolve(reply: Msg): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Request/reply for one connection on one reply subscription, `<inbox>.*`, made once: each request
 * publishes with `<inbox>.<token>` as its reply subject and waits in a map. This is what nats.js's
 * `request` does when not told `noMux`, minus what it adds to each request: a Promise.race with a
 * timer promise, and an Error (with its stack trace) built to cancel every request that succeeded.
 * Here a request costs one promise, one timer and one map entry. nats.js re-subscribes the reply
 * subscription after a reconnection; requests in flight then time out.
 */
export class MuxedRequests {
  private readonly prefix: string;
  private readonly subscription: Subscription;
  private readonly waiting = new Map<string, Waiting>();
  private sent = 0;

  constructor(private readonly nc: NatsConnection) {
    const inbox = createInbox();
    this.prefix = `${inbox}.`;
    this.subscription = nc.subscribe(`${inbox}.*`, { callback: (error, reply) => this.answer(error, reply) });
  }

  request(subject: string, data: string | Uint8Array, timeoutMs: number): Promise<Msg> {
    const token = (++this.sent).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.waiting.delete(token)) reject(new RequestTimeoutError(subject, timeoutMs));
      }, timeoutMs);
      this.waiting.set(token, { subject, resolve, reject, timer });
      try {
        this.nc.publish(subject, data, { reply: this.prefix + token });
      } catch (error) {
        this.settle(token);
        reject(error as Error);
      }
    });
  }

  /** Fails every request still waiting, and stops listening (the connection is closing). */
  close(error: Error): void {
    this.subscription.unsubscribe();
    this.failAll(error);
  }

  private answer(error: NatsError | null, reply: Msg): void {
    // The reply subscription itself failed (a permissions violation): nothing can arrive.
    if (error) return this.failAll(error);
    const token = reply.subject.slice(this.prefix.length);
    const waiting = this.settle(token);
    if (!waiting) return; // an answer after its timeout
    // The server's "no responders" status: an empty message with status 503.
    if (reply.data.length === 0 && reply.headers?.code === 503) waiting.reject(new NoRespondersError(waiting.subject));
    else waiting.resolve(reply);
  }

  private settle(token: string): Waiting | undefined {
    const waiting = this.waiting.get(token);
    if (!waiting) return undefined;
    this.waiting.delete(token);
    clearTimeout(waiting.timer);
    return waiting;
  }

  private failAll(error: Error): void {
    for (const token of [...this.waiting.keys()]) this.settle(token)?.reject(error);
  }
}
