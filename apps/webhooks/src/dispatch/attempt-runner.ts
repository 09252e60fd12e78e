import { Logger } from '@nestjs/common';
import type { WebhookSecretReply } from '@gen/contracts';
import type { DeliveryAttemptsRepository } from '../deliveries/delivery-attempts.repository';
import type { ClaimedAttempt } from '../deliveries/delivery-attempt';
import type { WebhookSecretsService } from '../keys/webhook-secrets.service';
import type { DeliveryMetrics } from '../metrics/delivery-metrics';
import type { AttemptSlots } from './attempt-slots';
import { attemptResult, notSent, verdictOf } from './attempt-state';
import { reportFailedForGood } from './failed-delivery-log';
import type { OutcomeWriter } from './outcome.writer';
import type { AttemptOutcome, WebhookSender } from './webhook-sender';

/** An attempt started later than this after its due time counts as late (the spec allows 100 ms). */
const LATE_MS = 100;

export interface AttemptRunnerEvents {
  /** The delivery's next attempt is due at `dueAt`: its attempt failed with attempts left, or could not start. */
  retryAt(deliveryId: string, dueAt: number): void;
  /** An attempt ended, whatever its outcome: its slot is free. */
  slotFreed(): void;
}

/**
 * Runs claimed attempts, each through the states of `attempt-state.ts`: read the key's signing
 * secret, sign and send, decide (`verdictOf`), record the outcome (OutcomeWriter), then tell the
 * dispatcher when the next attempt is due. An attempt holds one of the process's slots until it
 * ends.
 */
export class AttemptRunner {
  private readonly logger = new Logger('WebhookDispatcher');
  private readonly running = new Map<string, Promise<void>>();
  private readonly counters = { started: 0, lateOver100ms: 0, maxLatenessMs: 0 };

  constructor(
    private readonly deps: {
      repository: Pick<DeliveryAttemptsRepository, 'releaseClaim'>;
      sender: WebhookSender;
      secrets: Pick<WebhookSecretsService, 'get'>;
      outcomes: OutcomeWriter;
      slots: AttemptSlots;
      metrics?: DeliveryMetrics;
    },
    private readonly settings: { notStartedRetryMs: number },
    private readonly events: AttemptRunnerEvents,
  ) {}

  /** True while an attempt of the delivery runs in this process. */
  isRunning(deliveryId: string): boolean {
    return this.running.has(deliveryId);
  }

  /** Attempts started, and how late against their due time (for the benchmark and metrics). */
  stats(): { inFlight: number; started: number; lateOver100ms: number; maxLatenessMs: number } {
    return { inFlight: this.running.size, ...this.counters };
  }

  /**
   * Starts claimed attempts. Attempts that start together ask for each key's secret once: the
   * lookup is made after they were claimed, so each is still signed with the secret current when
   * it started (a renewal before that is always seen).
   */
  startAll(claims: readonly ClaimedAttempt[]): void {
    const lookups = new Map<string, Promise<WebhookSecretReply>>();
    for (const claim of claims) {
      let lookup = lookups.get(claim.apiKeyId);
      if (!lookup) {
        lookup = this.deps.secrets.get(claim.apiKeyId);
        lookups.set(claim.apiKeyId, lookup);
      }
      this.start(claim, lookup);
    }
  }

  /** Resolves when every attempt running now has ended (each within its 5 s timeout). */
  async idle(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }

  private start(claim: ClaimedAttempt, secret: Promise<WebhookSecretReply>): void {
    this.deps.slots.started();
    const task = this.run(claim, secret)
      .catch((error: unknown) =>
        // The lease expires and the delivery resumes; the attempt in flight is then marked interrupted.
        this.logger.error({ err: error, deliveryId: claim.deliveryId }, 'Webhook attempt not recorded'),
      )
      .finally(() => {
        this.running.delete(claim.deliveryId);
        this.deps.slots.ended();
        this.events.slotFreed();
      });
    this.running.set(claim.deliveryId, task);
  }

  /** One attempt, from claimed to recorded (the transitions of `attempt-state.ts`). */
  private async run(claim: ClaimedAttempt, secretLookup: Promise<WebhookSecretReply>): Promise<void> {
    let signing: WebhookSecretReply;
    try {
      signing = await secretLookup;
    } catch (error) {
      // Our own dependency is down: nothing was sent, so the attempt is given back, not spent.
      this.logger.warn({ err: error, deliveryId: claim.deliveryId }, 'Signing secret unavailable; webhook attempt postponed');
      const retryAt = Date.now() + this.settings.notStartedRetryMs;
      if (await this.deps.repository.releaseClaim(claim, retryAt)) this.events.retryAt(claim.deliveryId, retryAt);
      return;
    }

    this.countStart(claim);
    const { secret, scheme, previousSecret } = signing;
    const outcome: AttemptOutcome = secret
      ? await this.deps.sender.send({
          url: claim.url,
          deliveryId: claim.deliveryId,
          event: claim.event,
          body: claim.body,
          secret,
          scheme,
          previousSecret,
          test: claim.test,
        })
      : notSent(Date.now());
    this.deps.metrics?.attemptFinished({
      outcome: outcome.ok ? 'succeeded' : (outcome.errorClass ?? 'connection'),
      durationMs: outcome.durationMs,
      attemptNumber: claim.number,
    });
    const verdict = verdictOf(claim.number, outcome);
    if (!(await this.deps.outcomes.record(claim, attemptResult(outcome, verdict)))) {
      this.logger.warn({ deliveryId: claim.deliveryId, attempt: claim.number }, 'Webhook attempt outcome came after its lease expired');
      return;
    }
    switch (verdict.next) {
      case 'retry':
        this.events.retryAt(claim.deliveryId, verdict.dueAt);
        return;
      case 'failed':
        reportFailedForGood(this.logger, this.deps.metrics, claim, outcome);
        return;
      case 'succeeded':
        this.deps.metrics?.deliveryFinished('succeeded');
        return;
    }
  }

  private countStart(claim: ClaimedAttempt): void {
    const lateness = Date.now() - claim.dueAt;
    this.counters.started++;
    if (lateness > LATE_MS) this.counters.lateOver100ms++;
    this.counters.maxLatenessMs = Math.max(this.counters.maxLatenessMs, lateness);
  }
}
