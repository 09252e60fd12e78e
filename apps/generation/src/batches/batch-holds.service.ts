import { Injectable } from '@nestjs/common';
import { ReleaseCreditsRequest, ReserveCreditsReply, ReserveCreditsRequest, Subjects } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import type { AdmittingLine } from './batch-feed.repository';

/**
 * A batch line's credits in billing, keyed by its job id as a submit's are: `reserve` (the request the
 * gateway sends for a submit, with the batch's key, so its spending caps apply; a repeat holds nothing
 * twice) and `release` when the line does not become a job after all.
 */
@Injectable()
export class BatchHolds {
  constructor(private readonly rpc: RpcClient) {}

  async reserve(line: AdmittingLine): Promise<void> {
    await this.rpc.request<ReserveCreditsReply, ReserveCreditsRequest>(Subjects.billingReserve, {
      accountId: line.batch.account_id,
      jobId: line.jobId,
      modelId: line.request.model,
      amount: line.request.credits,
      minimum: line.request.minimumCredits,
      apiKeyId: line.batch.api_key_id,
      lane: 'background',
    });
  }

  /**
   * Nothing held is a no-op in billing. A failure to ask throws: the caller leaves the line
   * `admitting`, so a later pass takes it again (and releases or admits it then).
   */
  async release(line: AdmittingLine, reason: string): Promise<void> {
    await this.rpc.request<unknown, ReleaseCreditsRequest>(Subjects.billingRelease, { accountId: line.batch.account_id, jobId: line.jobId, reason });
  }
}
