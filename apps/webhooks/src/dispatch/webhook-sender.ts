import { performance } from 'node:perf_hooks';
import type { Dispatcher } from 'undici';
import { request } from 'undici';
import type { EventName, WebhookAttemptErrorClass, WebhookSignatureScheme } from '@gen/contracts';
import { DELIVERY_ID_HEADER, EVENT_HEADER, signatureHeaders, standardSignatureHeaders, TEST_HEADER, WEBHOOK_USER_AGENT } from '@gen/webhook-signature';
import { createSafeDispatcher, ForbiddenDestinationError, validateWebhookUrl, WebhookDestinationPolicy } from '@gen/webhook-policy';
import { ATTEMPT_TIMEOUT_MS } from '../deliveries/retry-schedule';

export interface WebhookRequest {
  url: string;
  deliveryId: string;
  event: EventName;
  /** The stored body bytes, sent and signed as they are. */
  body: Buffer;
  /** The key's current signing secret. */
  secret: string;
  /** The key's scheme (default `service`: the spec's X-Service-* headers). */
  scheme?: WebhookSignatureScheme;
  /** `standard` only: the previous secret while a rotation overlaps (a second signature). */
  previousSecret?: string | null;
  /** A test event: adds `X-Service-Test: true`. */
  test?: boolean;
}

export interface AttemptOutcome {
  ok: boolean;
  /** Epoch ms when the exchange started (signing time). */
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  errorClass: WebhookAttemptErrorClass | null;
  /** Sanitised, user-facing; null on success. */
  error: string | null;
}

/** How much of a response body is read (and thrown away) before the connection is dropped. */
const MAX_RESPONSE_BYTES = 64 * 1024;
/** Destination URLs whose policy check is remembered (the policy is fixed for the process's life). */
const MAX_CHECKED_URLS = 10_000;

/**
 * Makes one attempt of a delivery: one signed POST, the whole exchange (connect, headers, body)
 * within the attempt timeout, redirects never followed. Never throws: every failure is an outcome.
 */
export class WebhookSender {
  private readonly dispatcher: Dispatcher;
  private readonly timeoutMs: number;
  /**
   * The URL check's answer per URL string: a receiver gets many deliveries, and the check (parsing
   * the URL and the allow-list) costs more than the rest of an attempt's bookkeeping. The address
   * a name resolves to is still checked at every connection, by the dispatcher's agent.
   */
  private readonly checked = new Map<string, { ok: true; href: string } | { ok: false; reason: string }>();

  constructor(
    private readonly policy: WebhookDestinationPolicy,
    options: {
      /** Defaults to a keep-alive, SSRF-safe agent (resolved addresses are checked at connect time). */
      dispatcher?: Dispatcher;
      timeoutMs?: number;
      /** Of the default agent: connections open at once to one receiver origin. */
      connectionsPerOrigin?: number;
    } = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
    this.dispatcher =
      options.dispatcher ??
      createSafeDispatcher(policy, { connectTimeoutMs: this.timeoutMs, connectionsPerOrigin: options.connectionsPerOrigin });
  }

  /** Closes the keep-alive connections. */
  async close(): Promise<void> {
    await this.dispatcher.close();
  }

  async send(input: WebhookRequest): Promise<AttemptOutcome> {
    const startedAt = Date.now();
    const t0 = performance.now();
    const done = (fields: Omit<AttemptOutcome, 'startedAt' | 'durationMs'>): AttemptOutcome => ({
      ...fields,
      startedAt,
      durationMs: Math.max(0, Math.round(performance.now() - t0)),
    });

    const checked = this.check(input.url);
    if (!checked.ok) return done({ ok: false, statusCode: null, errorClass: 'forbidden_destination', error: checked.reason });

    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT,
      [EVENT_HEADER]: input.event,
      ...signingHeaders(input, new Date(startedAt)),
    };
    if (input.test) headers[TEST_HEADER] = 'true';

    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, this.timeoutMs);
    let statusCode: number | null = null;
    try {
      const response = await request(checked.href, {
        method: 'POST',
        headers,
        body: input.body,
        dispatcher: this.dispatcher,
        signal: abort.signal,
        // The abort above bounds the whole exchange; these only keep undici from waiting longer.
        headersTimeout: this.timeoutMs + 1_000,
        bodyTimeout: this.timeoutMs + 1_000,
      });
      statusCode = response.statusCode;
      // The exchange ends when the answer has been received in full (a trickled body counts against the timeout).
      let received = 0;
      for await (const chunk of response.body) {
        received += (chunk as Buffer).length;
        if (received > MAX_RESPONSE_BYTES) {
          response.body.destroy();
          break;
        }
      }
      if (timedOut) return done({ ok: false, statusCode, errorClass: 'timeout', error: this.timeoutMessage(statusCode) });
      if (statusCode >= 200 && statusCode < 300) return done({ ok: true, statusCode, errorClass: null, error: null });
      return done({ ok: false, statusCode, errorClass: 'http_status', error: statusMessage(statusCode) });
    } catch (error) {
      if (timedOut) return done({ ok: false, statusCode, errorClass: 'timeout', error: this.timeoutMessage(statusCode) });
      const forbidden = findForbidden(error);
      if (forbidden) return done({ ok: false, statusCode, errorClass: 'forbidden_destination', error: forbidden.message });
      return done({ ok: false, statusCode, errorClass: 'connection', error: connectionMessage(error) });
    } finally {
      clearTimeout(timer);
    }
  }

  private check(url: string): { ok: true; href: string } | { ok: false; reason: string } {
    let answer = this.checked.get(url);
    if (!answer) {
      const validation = validateWebhookUrl(url, this.policy);
      answer = validation.ok ? { ok: true, href: validation.url.href } : validation;
      if (this.checked.size >= MAX_CHECKED_URLS) this.checked.clear();
      this.checked.set(url, answer);
    }
    return answer;
  }

  private timeoutMessage(statusCode: number | null): string {
    const seconds = this.timeoutMs / 1000;
    return statusCode === null
      ? `No answer within ${seconds} s.`
      : `The answer (HTTP ${statusCode}) was not complete within ${seconds} s.`;
  }
}

/**
 * The signature headers of the key's scheme: the spec's (X-Service-Timestamp, X-Service-Signature,
 * X-Service-Delivery-Id), or Standard Webhooks' (webhook-id is the delivery id, the same on every
 * attempt; one signature per secret, the previous one only during a rotation's overlap).
 */
function signingHeaders(input: WebhookRequest, now: Date): Record<string, string> {
  if (input.scheme === 'standard') {
    const secrets = input.previousSecret ? [input.secret, input.previousSecret] : [input.secret];
    return standardSignatureHeaders({ id: input.deliveryId, secrets, body: input.body, now });
  }
  return { ...signatureHeaders({ secret: input.secret, body: input.body, now }), [DELIVERY_ID_HEADER]: input.deliveryId };
}

function statusMessage(statusCode: number): string {
  if (statusCode >= 300 && statusCode < 400) return `HTTP ${statusCode}: redirects are not followed; answer 2xx at the webhook URL itself.`;
  return `HTTP ${statusCode}: the receiver did not answer with a 2xx status.`;
}

function findForbidden(error: unknown): ForbiddenDestinationError | null {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ForbiddenDestinationError) return e;
  }
  return null;
}

const CONNECTION_MESSAGES: Record<string, string> = {
  ECONNREFUSED: 'Connection refused by the receiver.',
  ECONNRESET: 'The receiver reset the connection.',
  EPIPE: 'The receiver closed the connection.',
  ENOTFOUND: 'The host name of the webhook URL was not found.',
  EAI_AGAIN: 'The host name of the webhook URL could not be resolved (temporary DNS failure).',
  EHOSTUNREACH: 'The receiver is unreachable.',
  ENETUNREACH: 'The receiver network is unreachable.',
  ETIMEDOUT: 'Connecting to the receiver timed out.',
  UND_ERR_CONNECT_TIMEOUT: 'Connecting to the receiver timed out.',
  UND_ERR_SOCKET: 'The connection closed before a complete answer.',
  UND_ERR_CLOSED: 'The connection closed before a complete answer.',
  UND_ERR_HEADERS_TIMEOUT: 'No answer in time.',
  UND_ERR_BODY_TIMEOUT: 'The answer was not complete in time.',
  UND_ERR_RESPONSE_EXCEEDED_MAX_SIZE: 'The answer was too large.',
};

/** A short description safe to show the customer: no stack, no internal host, no secret. */
function connectionMessage(error: unknown): string {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (CONNECTION_MESSAGES[code]) return CONNECTION_MESSAGES[code];
    if (code.startsWith('HPE_')) return 'The receiver sent an invalid HTTP response.';
    if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code) && /^[A-Z0-9_]{1,64}$/.test(code)) {
      return `TLS failure: the receiver's certificate was not accepted (${code}).`;
    }
  }
  return 'The connection to the receiver failed.';
}
