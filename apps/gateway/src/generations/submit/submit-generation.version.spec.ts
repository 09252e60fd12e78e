import { ModelInfo, ReserveCreditsRequest, Subjects, SubmitGenerationReply, SubmitGenerationRequest } from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import type { ApiKeysService } from '../../auth/api-keys.service';
import type { GatewaySettings } from '../../settings/gateway.tokens';
import type { IdempotencyService } from '../../idempotency/idempotency.service';
import type { AccountPlanService } from '../../plans/account-plan.service';
import type { GetGeneration } from '../records/get-generation.service';
import { SubmitGeneration } from './submit-generation.service';
import type { CatalogueCopy, ModelCatalogue } from '../../models/model-catalogue';
import type { SubmitDelivery } from './submit-delivery';
import type { UploadsService } from '../../uploads/uploads.service';

const model = (credits: number): ModelInfo => ({
  id: 'm',
  name: 'M',
  type: 'TEXT_TO_IMAGE',
  credits,
  minimum_credits: credits,
  synchronous: false,
  min_plan: 'free',
  provider: 'demo',
  description: '',
  available: true,
  unavailable_reason: null,
  inputs: { type: 'object', properties: {}, additionalProperties: false },
  price_multipliers: [],
  pricing: `${credits} credits per generation`,
});

/** Each read of the catalogue answers the next version: a price change lands between any two reads. */
class ChangingCatalogue {
  reads = 0;
  current(): Promise<CatalogueCopy> {
    this.reads++;
    const credits = 3 + 2 * (this.reads - 1);
    return Promise.resolve({ models: new Map([['m', model(credits)]]), version: `v${this.reads}`, readAt: Date.now() });
  }
}

class RecordingRpc extends RpcClient {
  readonly reserves: ReserveCreditsRequest[] = [];
  async request<TReply>(subject: string, payload: unknown): Promise<TReply> {
    if (subject === Subjects.billingReserve) this.reserves.push(payload as ReserveCreditsRequest);
    return {} as TReply;
  }
}

/**
 * The gateway's half of "one catalogue version per submit": the refusal rules, the price it holds
 * and the price and version it hands the generation replica (the admission, and the job's charge)
 * come from one read of the catalogue. A second read anywhere on the way would see another version.
 */
describe('SubmitGeneration: one catalogue version per submit', () => {
  it('holds, and hands over for the admission and the charge, the price and version of the copy it checked', async () => {
    const catalogue = new ChangingCatalogue();
    const rpc = new RecordingRpc();
    const submitted: SubmitGenerationRequest[] = [];
    const delivery = {
      deliver: (request: SubmitGenerationRequest): Promise<SubmitGenerationReply> => {
        submitted.push(request);
        return Promise.resolve({ finished: false, record: { id: request.jobId, status: 'queued' } as SubmitGenerationReply['record'] });
      },
    };
    const plans = { get: () => Promise.resolve({ plan: 'pro', limits: { requests_per_minute: 60, parallel_tasks: 2 } }) };
    const keys = { webhookDestination: () => Promise.resolve({ defaultWebhookUrl: null, hasSecret: false }) };
    const service = new SubmitGeneration(
      rpc,
      catalogue as unknown as ModelCatalogue,
      delivery as unknown as SubmitDelivery,
      plans as unknown as AccountPlanService,
      keys as unknown as ApiKeysService,
      {} as IdempotencyService,
      {} as UploadsService, // the model has no media inputs: nothing to resolve
      {} as GetGeneration, // no Idempotency-Key: nothing to look up
      { syncWaitMs: 1_000, publicBaseUrl: 'http://localhost:3000', webhookPolicy: { allowHttp: false, allowPrivate: false, allowList: [] } } as unknown as GatewaySettings,
    );
    await service.execute({ accountId: 'a', apiKeyId: 'k', body: { model: 'm', prompt: 'p', type: 'TEXT_TO_IMAGE' } });

    expect(catalogue.reads).toBe(1);
    expect(rpc.reserves.map((r) => ({ amount: r.amount, minimum: r.minimum }))).toEqual([{ amount: 3, minimum: 3 }]);
    expect(submitted.map((r) => ({ credits: r.credits, version: r.catalogueVersion, jobId: r.jobId }))).toEqual([
      { credits: 3, version: 'v1', jobId: rpc.reserves[0].jobId },
    ]);
  });
});
