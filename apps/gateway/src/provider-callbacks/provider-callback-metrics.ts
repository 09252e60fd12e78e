import { Counter } from 'prom-client';
import { CALLBACK_PROVIDERS, CallbackRefusal, ProviderCallbackReply } from '@gen/contracts';
import { MetricsRegistry } from '@gen/observability';

/** Refusals the gateway makes itself, before anything reaches the generation service. */
export type GatewayCallbackRefusal = 'too_large' | 'bad_body' | 'media_type' | 'request_timeout' | 'other';

/** The refusal a status answered before the route ran stands for. */
function gatewayRefusal(status: number): GatewayCallbackRefusal {
  switch (status) {
    case 413:
      return 'too_large';
    case 400:
      return 'bad_body';
    case 415:
      return 'media_type';
    case 408:
      return 'request_timeout';
    default:
      return 'other';
  }
}

/**
 * Counters of provider callbacks (docs/operations/configure.md, "Provider callbacks"), counted by the gateway
 * that received them, when the answer has gone: every callback is `received`; those whose token and
 * signature held are `verified`; those that changed nothing are `refused`, by reason (the generation
 * service's, or the gateway's own for a body too large, not JSON or too deep). `provider` is one of
 * the known providers or `unknown`, so a forged path cannot grow the label set.
 */
export class ProviderCallbackMetrics {
  private readonly received: Counter<'provider'>;
  private readonly verified: Counter<'provider'>;
  private readonly refused: Counter<'provider' | 'reason'>;
  private readonly outcomes = new WeakMap<object, ProviderCallbackReply>();

  constructor(metrics: MetricsRegistry) {
    const registers = [metrics.registry];
    this.received = new Counter({ name: 'gen_provider_callbacks_received_total', help: 'Provider callbacks received, by provider', labelNames: ['provider'], registers });
    this.verified = new Counter({
      name: 'gen_provider_callbacks_verified_total',
      help: 'Provider callbacks whose token and signature held, by provider',
      labelNames: ['provider'],
      registers,
    });
    this.refused = new Counter({
      name: 'gen_provider_callbacks_refused_total',
      help: 'Provider callbacks that changed nothing, by provider and reason',
      labelNames: ['provider', 'reason'],
      registers,
    });
    for (const provider of CALLBACK_PROVIDERS) {
      this.received.inc({ provider }, 0);
      this.verified.inc({ provider }, 0);
    }
  }

  /** What the generation service answered for this request (`request` is the raw request object). */
  answered(request: object, reply: ProviderCallbackReply): void {
    this.outcomes.set(request, reply);
  }

  /** Counts a callback once its answer was sent: `path` is the request's path, `status` the answer's. */
  count(request: object, path: string, status: number): void {
    const segment = path.split('/')[2] ?? '';
    const provider = (CALLBACK_PROVIDERS as readonly string[]).includes(segment) ? segment : 'unknown';
    this.received.inc({ provider });
    const outcome = this.outcomes.get(request);
    if (outcome?.verified) this.verified.inc({ provider });
    if (outcome?.outcome === 'woken') return;
    const reason: CallbackRefusal | GatewayCallbackRefusal = outcome?.outcome === 'refused' ? outcome.reason : status === 404 ? 'token' : gatewayRefusal(status);
    this.refused.inc({ provider, reason });
  }
}
