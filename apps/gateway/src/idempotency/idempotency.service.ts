import { Injectable, Logger } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { ServiceUnavailableError, ValidationError } from '@gen/errors';
import { IdempotencyRepository, StoredResponse } from './idempotency.repository';

/** How long a key and its response are kept (docs/guide/limits.md, "Idempotency-Key": within 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentRequest {
  accountId: string;
  /** The Idempotency-Key header as received. */
  key: string;
  /** What makes two requests "the same body" (hashed; compared on every reuse of the key). */
  fingerprint: string;
  /** Longest time the request may run; a duplicate waits at most this long before taking over. */
  lockMs: number;
}

export interface IdempotentOutcome {
  response: StoredResponse;
  /** True when this is the stored response of an earlier request with the same key. */
  replayed: boolean;
}

/** Runs a request under a job id; throws when it fails. */
export type RunWithJob = (jobId: string) => Promise<StoredResponse>;
/** The response a request with this job id would give now, or null when no such job exists. */
export type LookUpJob = (jobId: string) => Promise<StoredResponse | null>;

/** Validates an Idempotency-Key header value (422 with what is expected). */
export function parseIdempotencyKey(value: string): string {
  if (!KEY_PATTERN.test(value)) {
    throw new ValidationError('Idempotency-Key: 1 to 255 visible ASCII characters, without spaces (a UUID works well).');
  }
  return value;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Idempotency-Key semantics of a request that creates one job: the same key and body from the same
 * account within 24 h answer the first response and create nothing; the same key with another body
 * is 422. The record (with the job id the request will use) is inserted before anything runs, so of
 * concurrent duplicates exactly one runs and the others wait for its stored response. A request
 * that fails without creating its job forgets the key, so the client can retry with it.
 */
@Injectable()
export class IdempotencyService {
  private readonly logger = new Logger(IdempotencyService.name);

  constructor(private readonly records: IdempotencyRepository) {}

  async once(request: IdempotentRequest, run: RunWithJob, lookUp: LookUpJob): Promise<IdempotentOutcome> {
    const { accountId, key } = request;
    const hash = createHash('sha256').update(request.fingerprint, 'utf8').digest();
    // The holder's lock bounds each wait; the overall bound only guards against a livelock.
    const giveUpAt = Date.now() + 2 * request.lockMs + 10_000;
    let pause = 20;
    while (Date.now() < giveUpAt) {
      const jobId = randomUUID();
      if (await this.records.claim(accountId, key, hash, jobId, request.lockMs, IDEMPOTENCY_TTL_MS)) {
        return { response: await this.execute(request, jobId, run, lookUp), replayed: false };
      }
      const row = await this.records.find(accountId, key);
      if (!row) continue; // the holder failed and forgot the key (or it just expired): claim again
      if (!row.requestHash.equals(hash)) {
        throw new ValidationError(
          'Idempotency-Key: this key was already used with a different request body in the last 24 hours. ' +
            'Send the same body to get the original response, or use a new key for a new request.',
        );
      }
      if (row.response) return { response: row.response, replayed: true };
      if (row.locked) {
        // The first request with this key is still running: wait for its response.
        await sleep(Math.min(pause, row.lockMsLeft));
        pause = Math.min(250, Math.ceil(pause * 1.5));
        continue;
      }
      // Its request stopped without an answer (a crash, a lost reply): take over, under its job id.
      if (!(await this.records.takeOver(accountId, key, row.jobId, request.lockMs))) continue;
      const existing = await this.lookUpOrUnlock(request, row.jobId, lookUp);
      if (existing) {
        await this.records.complete(accountId, key, row.jobId, existing);
        return { response: existing, replayed: true };
      }
      const replacement = randomUUID();
      if (!(await this.records.replaceJob(accountId, key, row.jobId, replacement))) continue;
      return { response: await this.execute(request, replacement, run, lookUp), replayed: false };
    }
    throw new ServiceUnavailableError('A request with this Idempotency-Key is still being processed; retry shortly.');
  }

  private async execute(request: IdempotentRequest, jobId: string, run: RunWithJob, lookUp: LookUpJob): Promise<StoredResponse> {
    const { accountId, key } = request;
    let response: StoredResponse;
    try {
      response = await run(jobId);
    } catch (error) {
      await this.afterFailure(request, jobId, lookUp);
      throw error;
    }
    if (!(await this.records.complete(accountId, key, jobId, response))) {
      this.logger.warn({ accountId, jobId }, 'Idempotency record changed while its request ran; response not stored');
    }
    return response;
  }

  /**
   * A failed request may still have created its job (a reply lost after the insert). If it did,
   * retries get that job; if it did not, the key is forgotten; if that cannot be told now, the next
   * retry looks again.
   */
  private async afterFailure(request: IdempotentRequest, jobId: string, lookUp: LookUpJob): Promise<void> {
    const { accountId, key } = request;
    try {
      const existing = await lookUp(jobId);
      if (existing) await this.records.complete(accountId, key, jobId, existing);
      else await this.records.forget(accountId, key, jobId);
    } catch (error) {
      this.logger.warn({ err: error, accountId, jobId }, 'Could not tell whether a failed idempotent request created its job');
      await this.records.unlock(accountId, key, jobId).catch(() => undefined);
    }
  }

  private async lookUpOrUnlock(request: IdempotentRequest, jobId: string, lookUp: LookUpJob): Promise<StoredResponse | null> {
    try {
      return await lookUp(jobId);
    } catch (error) {
      await this.records.unlock(request.accountId, request.key, jobId).catch(() => undefined);
      throw error;
    }
  }

  /** Removes records past their 24 h. */
  deleteExpired(): Promise<number> {
    return this.records.deleteExpired();
  }
}
