import { Webhook } from 'standardwebhooks';
import { postCallback, SentCallback, sleep } from './fake-provider';

/** Standard Webhooks headers for `body`, signed with `secret` at `at`. */
export function signedHeaders(secret: string, webhookId: string, at: Date, body: string, signature?: string): Record<string, string> {
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature ?? new Webhook(secret).sign(webhookId, at, body),
  };
}

/**
 * One `completed` delivery: signed at send time (with the secret as it is then), retried on a
 * non-2xx answer with the same webhook-id, `retries` times `retryMs` apart.
 */
export async function deliverWebhook(
  callbacks: SentCallback[],
  url: string,
  webhookId: string,
  current: () => { body: string; secret: string },
  options: { retries?: number; retryMs?: number },
): Promise<void> {
  for (let attempt = 0; attempt <= (options.retries ?? 0); attempt++) {
    const { body, secret } = current();
    const sent = await postCallback(callbacks, url, signedHeaders(secret, webhookId, new Date(), body), body);
    if (sent.status >= 200 && sent.status < 300) return;
    await sleep(options.retryMs ?? 200);
  }
}
