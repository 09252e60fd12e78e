import { request } from 'undici';
import { createSafeDispatcher, WebhookDestinationPolicy } from '@gen/webhook-policy';
import { WEBHOOKS_DEFAULTS } from '@gen/webhooks';
import { DELIVERY_ID_HEADER, EVENT_HEADER, newDeliveryId, signatureHeaders, WEBHOOK_USER_AGENT } from '@gen/webhook-signature';

/**
 * The baseline: sign and POST in a loop with the dispatcher's HTTP client (undici through the same
 * safe agent, same settings as WebhookSender's), `concurrency` requests in flight, for `durationMs`.
 * No database, no timers, no bookkeeping: what the machine can do at best.
 */
export async function bareLoop(options: {
  url: string;
  policy: WebhookDestinationPolicy;
  secret: string;
  body: (i: number) => Buffer;
  concurrency: number;
  durationMs: number;
}): Promise<{ sent: number; failed: number; elapsedMs: number; perSecond: number }> {
  // What WebhookSender builds by default (production settings: 5 s, 64 connections per origin).
  const dispatcher = createSafeDispatcher(options.policy, { connectTimeoutMs: 5_000, connectionsPerOrigin: WEBHOOKS_DEFAULTS.connectionsPerOrigin });
  let sent = 0;
  let failed = 0;
  let started = 0;
  const t0 = performance.now();
  const deadline = t0 + options.durationMs;
  const worker = async () => {
    while (performance.now() < deadline) {
      const body = options.body(started++);
      const response = await request(options.url, {
        method: 'POST',
        dispatcher,
        body,
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': WEBHOOK_USER_AGENT,
          [EVENT_HEADER]: 'generation.completed',
          ...signatureHeaders({ secret: options.secret, body }),
          [DELIVERY_ID_HEADER]: newDeliveryId(),
        },
      });
      for await (const chunk of response.body) void chunk;
      if (response.statusCode >= 200 && response.statusCode < 300) sent++;
      else failed++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const elapsedMs = performance.now() - t0;
  await dispatcher.close();
  return { sent, failed, elapsedMs, perSecond: (sent * 1000) / elapsedMs };
}
