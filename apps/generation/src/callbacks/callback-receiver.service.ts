import { Injectable, Logger } from '@nestjs/common';
import { CallbackProvider, CallbackRefusal, ProviderCallbackReply, ProviderCallbackRequest } from '@gen/contracts';
import { CatalogueService } from '../catalogue/catalogue.service';
import { ParkedJobs } from '../jobs/runtime/parked-jobs.service';
import { CallbackJobsRepository } from './callback-jobs.repository';
import { CALLBACK_TOLERANCE_SECONDS } from '../ports/callback-verifier';
import { ProviderCallbacks } from './provider-callbacks.service';

/** Deliveries remembered per replica for the replay check (each for the signature tolerance). */
const MAX_REMEMBERED = 50_000;

const MESSAGES: Record<CallbackRefusal, string> = {
  token: 'No callback is expected at this URL.',
  unknown_job: 'No callback is expected at this URL.',
  malformed: 'The callback body is not what this provider sends.',
  signature: "The callback's signature is missing or does not verify.",
  timestamp: "The callback's timestamp is too far from the current time.",
  replayed: 'This callback was already received; it changed nothing.',
  mismatch: 'The callback is about another upstream job; it changed nothing.',
  not_parked: 'The generation is not waiting on its provider right now; the callback changed nothing.',
  finished: 'The generation has already finished; the callback changed nothing.',
  unverifiable: "The provider's signing keys cannot be read right now; retry later.",
};

/** Refusals an operator wants to see (something is wrong or under attack); the others are routine. */
const NOTEWORTHY = new Set<CallbackRefusal>(['signature', 'timestamp', 'malformed', 'mismatch', 'unverifiable']);

/** A wake that found the job not parked is tried again this many times, this far apart: a callback can beat the park of its own submit. */
const WAKE_TRIES = 4;
const WAKE_RETRY_MS = 250;

/**
 * What a provider's callback does when it comes back through a gateway. The order of the checks is
 * the cost order: the token (one HMAC, no I/O), the job (one indexed read), the provider's signature
 * (its key, cached), the replay memory, then the wake. A callback that passes them all only makes
 * the parked job due: its result is then read from the provider's API like a poll's, never taken
 * from the callback.
 */
@Injectable()
export class CallbackReceiver {
  private readonly logger = new Logger(CallbackReceiver.name);
  /** Deliveries that woke a job, by id, with when they stop mattering (the signature tolerance). */
  private readonly acted = new Map<string, number>();

  constructor(
    private readonly callbacks: ProviderCallbacks,
    private readonly jobs: CallbackJobsRepository,
    private readonly catalogue: CatalogueService,
    private readonly parked: ParkedJobs,
  ) {}

  async receive(request: ProviderCallbackRequest): Promise<ProviderCallbackReply> {
    const jobId = this.callbacks.jobOf(request.provider, request.token);
    if (!jobId) return this.refused(request.provider, null, 'token', false, 'not a token of ours');
    const job = await this.jobs.find(jobId);
    if (!job) return this.refused(request.provider, jobId, 'unknown_job', false, 'no such job');
    const model = this.catalogue.find(job.modelId);
    const verifier = model && model.engine === request.provider ? this.catalogue.engineFor(model).engine?.callbacks : undefined;
    if (!verifier) return this.refused(request.provider, jobId, 'token', false, `the job's model is not bound to ${request.provider} here`);
    const now = Date.now();
    const verdict = await verifier.verify({ headers: request.headers, body: Buffer.from(request.body, 'base64') }, job.upstreamRef, now);
    if (!verdict.ok) return this.refused(request.provider, jobId, verdict.reason, false, verdict.detail);
    if (verdict.deliveryId !== null && (this.acted.get(verdict.deliveryId) ?? 0) > now) {
      return this.refused(request.provider, jobId, 'replayed', true, 'a delivery that already woke the job');
    }
    if (job.status === 'completed' || job.status === 'failed') return this.refused(request.provider, jobId, 'finished', true, job.status);
    let woke = await this.parked.wake(jobId);
    for (let tries = 1; woke === 'not-parked' && tries < WAKE_TRIES; tries++) {
      // Its submit may not have parked it yet (a provider that answers in milliseconds): shortly again.
      await new Promise((resolve) => setTimeout(resolve, WAKE_RETRY_MS));
      woke = await this.parked.wake(jobId);
    }
    if (woke === 'unknown') return this.refused(request.provider, jobId, 'unknown_job', true, 'the job is gone');
    if (woke === 'not-parked') return this.refused(request.provider, jobId, 'not_parked', true, 'not waiting upstream');
    if (verdict.deliveryId !== null) this.remember(verdict.deliveryId, now);
    this.logger.debug({ provider: request.provider, jobId }, 'Provider callback woke a parked job');
    return { outcome: 'woken', verified: true };
  }

  private remember(deliveryId: string, now: number): void {
    this.acted.set(deliveryId, now + 2 * CALLBACK_TOLERANCE_SECONDS * 1000);
    if (this.acted.size <= MAX_REMEMBERED) return;
    for (const [id, until] of this.acted) {
      if (until <= now || this.acted.size > MAX_REMEMBERED) this.acted.delete(id);
      else break;
    }
  }

  private refused(provider: CallbackProvider, jobId: string | null, reason: CallbackRefusal, verified: boolean, detail: string): ProviderCallbackReply {
    const fields = { provider, jobId, reason, detail };
    if (NOTEWORTHY.has(reason)) this.logger.warn(fields, 'Provider callback refused');
    else this.logger.debug(fields, 'Provider callback refused');
    return { outcome: 'refused', verified, reason, message: MESSAGES[reason] };
  }
}
