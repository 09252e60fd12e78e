/**
 * A complete webhook receiver on Fastify: keeps the raw body, verifies the signature, drops
 * duplicate deliveries, and answers quickly.
 *
 *   WEBHOOK_SECRET=whsec_... PORT=3000 node fastify-receiver.js
 *
 * WEBHOOK_SECRET may hold several comma-separated secrets while you roll out a renewed one (see
 * docs/guide/webhook-receivers.md, "Renewing the secret": the service itself switches to the new secret at once).
 */
import Fastify, { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WebhookSignatureError, verify } from '@gen/webhook-signature';

/** The body of a webhook request (spec: Events, Body). */
export interface GenerationEvent {
  event: 'generation.completed' | 'generation.failed';
  id: string;
  status: 'completed' | 'failed';
  type: string;
  model: string;
  output_url: string | null;
  credits_charged: number;
  error: string | null;
  created_at: string;
  completed_at: string;
}

export interface ReceiverOptions {
  /** The key's webhook secret, or several during your own rollout of a renewed secret. */
  secrets: string | string[];
  /** Your business logic. Runs at most once per delivery id unless it throws. Keep it short. */
  onEvent: (event: GenerationEvent, deliveryId: string) => void | Promise<void>;
  path?: string;
  toleranceSeconds?: number;
  /** Clock, for tests. */
  now?: () => Date;
  /** How long a processed delivery id is remembered; well beyond the 300 s replay tolerance. */
  dedupeTtlMs?: number;
}

/**
 * Remembers delivery ids in memory. The delivery id header is not covered by the signature, so the
 * handler should also be idempotent on the signed body's `id` (one event per generation): that
 * also stops a captured request replayed within the tolerance under a made-up delivery id.
 *
 * A real deployment with more than one instance records them in its database instead (a table
 * with a unique key on the delivery id, inserted in the same transaction as the work the event
 * triggers).
 */
class DeliveryLog {
  private readonly done = new Map<string, number>();
  private readonly inProgress = new Set<string>();

  constructor(private readonly ttlMs: number) {}

  /** 'new' and marks it in progress, or why it must not be processed now. */
  begin(deliveryId: string, nowMs: number): 'new' | 'done' | 'in_progress' {
    for (const [id, expiresAt] of this.done) {
      if (expiresAt > nowMs) break; // insertion order = expiry order
      this.done.delete(id);
    }
    if (this.done.has(deliveryId)) return 'done';
    if (this.inProgress.has(deliveryId)) return 'in_progress';
    this.inProgress.add(deliveryId);
    return 'new';
  }

  finish(deliveryId: string, nowMs: number, succeeded: boolean): void {
    this.inProgress.delete(deliveryId);
    if (succeeded) this.done.set(deliveryId, nowMs + this.ttlMs);
  }
}

export function buildReceiver(options: ReceiverOptions): FastifyInstance {
  const { secrets, onEvent, path = '/webhooks/generation', toleranceSeconds, now = () => new Date() } = options;
  const deliveries = new DeliveryLog(options.dedupeTtlMs ?? 60 * 60 * 1000);
  const app = Fastify({ logger: false });

  // An encapsulated plugin: only routes registered inside it get the raw-body parser; the rest of
  // the application keeps Fastify's normal JSON parsing.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    // Keep the body exactly as received. Parsing then re-serialising the JSON would change its bytes.
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
      done(null, body);
    });

    scope.post(path, async (request: FastifyRequest<{ Body: Buffer }>, reply: FastifyReply) => {
      if (!Buffer.isBuffer(request.body)) return reply.code(400).send({ error: 'missing_body' });
      let deliveryId: string | undefined;
      try {
        ({ deliveryId } = verify(request.body, request.headers, secrets, { toleranceSeconds, now: now() }));
      } catch (err) {
        if (err instanceof WebhookSignatureError) {
          // Do not process; a 4xx tells the service the request was refused (it will retry, then stop).
          return reply.code(400).send({ error: err.reason });
        }
        throw err;
      }
      if (!deliveryId) return reply.code(400).send({ error: 'missing_delivery_id' });

      // The body is authentic from here on; read the event from it, not from the (unsigned) headers.
      let event: GenerationEvent;
      try {
        event = JSON.parse(request.body.toString('utf8')) as GenerationEvent;
      } catch {
        return reply.code(400).send({ error: 'invalid_json' });
      }

      const nowMs = now().getTime();
      switch (deliveries.begin(deliveryId, nowMs)) {
        case 'done':
          return reply.code(200).send({ received: true, duplicate: true });
        case 'in_progress':
          // Still being handled after a timeout on the service's side: a non-2xx makes it try again later.
          return reply.code(409).send({ error: 'delivery_in_progress' });
        case 'new':
          break;
      }
      try {
        await onEvent(event, deliveryId);
      } catch (err) {
        deliveries.finish(deliveryId, now().getTime(), false); // forget it: the retry will process it
        request.log.error({ err, deliveryId }, 'webhook handler failed');
        return reply.code(500).send({ error: 'handler_failed' });
      }
      deliveries.finish(deliveryId, now().getTime(), true);
      return reply.code(200).send({ received: true });
    });
  });

  return app;
}

if (require.main === module) {
  const secrets = (process.env.WEBHOOK_SECRET ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (secrets.length === 0) {
    console.error('Set WEBHOOK_SECRET to the webhook secret of your API key');
    process.exit(1);
  }
  const app = buildReceiver({
    secrets,
    onEvent: (event, deliveryId) => {
      console.log(`${deliveryId}: ${event.event} ${event.id} ${event.output_url ?? event.error ?? ''}`);
    },
  });
  app
    .listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 3000) })
    .then((address) => console.log(`Listening on ${address}/webhooks/generation`))
    .catch((err: unknown) => {
      console.error(err);
      process.exit(1);
    });
}
