import { Inject, Injectable, Logger } from '@nestjs/common';
import { GenerationRecord, GetGenerationRequest, Subjects, SubmitGenerationReply, SubmitGenerationRequest } from '@gen/contracts';
import { DomainError } from '@gen/errors';
import { PeriodicTask } from '@gen/observability';
import { NotDeliveredError, RpcClient } from '@gen/transport';
import { GATEWAY_SETTINGS, GatewaySettings } from '../../settings/gateway.tokens';
import { isUnavailable, RPC_ATTEMPTS, rpcRetryPause, withRpcRetries } from '../../rpc/rpc-retries';
import { isFinalRecord, JobWaits } from '../live/job-waits';

/** A sync submit still waiting reads its job this often: a final-state notice lost in flight (NATS restarting) is found so. */
export const SYNC_REREAD_MS = 2_000;
/**
 * Reads in a row that find no job before its submit counts as lost with the replica that took it
 * (killed before the admission committed, which takes milliseconds) and is sent again, once.
 */
export const SUBMIT_LOST_AFTER_READS = 2;
/** At the end of a sync wait whose job cannot be read, how long the submit's own reply may still come before `503`. */
export const SYNC_DEADLINE_GRACE_MS = 1_000;

/**
 * Hands a prepared submit (its credits held) to a generation replica, and for a synchronous model
 * waits on the job, not on that replica:
 * - a replica that is draining, dead or briefly without its database is not the end: the submit is
 *   sent again (another replica takes it) with the same job id, so it cannot make a second job;
 *   after a timeout the job is read first (it may be admitted already);
 * - the answer is the first of: the replica's reply with a final record, the final-state broadcast
 *   of whichever replica finishes the job, a read of the job (every SYNC_REREAD_MS, for a notice lost
 *   in flight); at `waitMs` the job is read and answered as it stands (`202` unless final), never later;
 * - a submit that reads find no job for is sent again (SUBMIT_LOST_AFTER_READS): it died with its replica;
 * - at `waitMs` with nothing able to read the job (NATS away), `503` after SYNC_DEADLINE_GRACE_MS.
 */
@Injectable()
export class SubmitDelivery {
  private readonly logger = new Logger(SubmitDelivery.name);

  constructor(
    private readonly rpc: RpcClient,
    private readonly waits: JobWaits,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  async deliver(request: SubmitGenerationRequest): Promise<SubmitGenerationReply> {
    if (request.waitMs <= 0) return this.admit(request, Date.now());
    const deadline = Date.now() + request.waitMs;
    const wait = this.waits.watch(request.jobId);
    let rereads: PeriodicTask | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const found = new Promise<SubmitGenerationReply>((resolve, reject) => {
        const done = (record: GenerationRecord) => resolve({ finished: true, record });
        let over = false;
        void wait.final.then(done);
        this.admit(request, deadline).then(
          // Admitted and not final yet (its replica drained, or took long): the job is waited on until the deadline.
          (reply) => (reply.finished || over) && resolve(reply),
          reject,
        );
        let unknown = 0;
        let resent = false;
        rereads = new PeriodicTask({
          name: 'Sync submit re-read',
          intervalMs: SYNC_REREAD_MS,
          run: () =>
            this.read(request).then((record) => {
              if (record) return isFinalRecord(record) && done(record);
              // No replica knows the job: its submit died with the replica that had it (kill -9), which
              // would otherwise be known only when the RPC times out (after the wait). Sent again with
              // the same job id (one job, one hold); if that fails, the first submit's answer decides.
              if (++unknown < SUBMIT_LOST_AFTER_READS || resent) return;
              resent = true;
              this.logger.warn({ jobId: request.jobId }, 'Submit lost with its replica (no replica knows the job); sending it again');
              this.admit(request, deadline).then((reply) => (reply.finished || over) && resolve(reply), () => undefined);
            }, () => undefined),
        });
        rereads.start();
        timer = setTimeout(() => {
          over = true;
          // The wait is over: the job as it stands (final or not), read from any replica. Not admitted
          // yet (its submit still under way): that submit's answer decides. Nothing answers the read
          // (NATS away): the submit's own reply gets a moment, then `503`, not an answer an RPC timeout later.
          this.read(request).then(
            (record) => record && resolve({ finished: isFinalRecord(record), record }),
            (error: unknown) => (timer = setTimeout(() => reject(error), SYNC_DEADLINE_GRACE_MS)),
          );
        }, Math.max(0, deadline - Date.now()));
      });
      return await found;
    } finally {
      wait.stop();
      void rereads?.stop();
      clearTimeout(timer);
    }
  }

  /**
   * Sends the submit until a replica takes it: again after "no responders" (none took it), after a
   * `503` or a timeout unless a read finds the job (it was admitted). Each run asks the replica to
   * wait only until `deadline` (0 for an asynchronous model).
   */
  private async admit(request: SubmitGenerationRequest, deadline: number): Promise<SubmitGenerationReply> {
    for (let attempt = 1; ; attempt++) {
      const waitMs = request.waitMs > 0 ? Math.max(0, deadline - Date.now()) : 0;
      try {
        return await this.rpc.request<SubmitGenerationReply, SubmitGenerationRequest>(
          Subjects.generationSubmit,
          { ...request, waitMs },
          this.settings.rpcTimeoutMs + waitMs,
        );
      } catch (error) {
        if (!isUnavailable(error) || attempt >= RPC_ATTEMPTS) throw error;
        if (!(error instanceof NotDeliveredError)) {
          const record = await this.read(request).catch(() => null);
          if (record) return { finished: isFinalRecord(record), record };
        }
        this.logger.warn({ jobId: request.jobId, attempt, err: error }, 'Submit not taken by a generation replica; sending it again');
        await rpcRetryPause(attempt);
      }
    }
  }

  /** The job, or null when no replica knows it. */
  private async read(request: SubmitGenerationRequest): Promise<GenerationRecord | null> {
    try {
      return await withRpcRetries(() =>
        this.rpc.request<GenerationRecord, GetGenerationRequest>(Subjects.generationGet, { accountId: request.accountId, jobId: request.jobId }),
      );
    } catch (error) {
      if (error instanceof DomainError && error.code === 'not_found') return null;
      throw error;
    }
  }
}
