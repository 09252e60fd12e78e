import { Injectable } from '@nestjs/common';
import {
  CancelGenerationReply,
  CancelGenerationRequest,
  GenerationRecord,
  GetGenerationRequest,
  ListGenerationsReply,
  ListGenerationsRequest,
  ListWebhookDeliveriesReply,
  ListWebhookDeliveriesRequest,
  PlanName,
  RedeliverWebhookReply,
  RedeliverWebhookRequest,
  Subjects,
  WebhookDeliveryView,
} from '@gen/contracts';
import { ConflictError, DomainError } from '@gen/errors';
import { RpcClient } from '@gen/transport';
import { AccountPlanService } from '../plans/account-plan.service';
import type { ListGenerationsQueryDto } from './list-generations-query.dto';
import { ApiKeysService } from '../auth/api-keys.service';
import type { LiveSession } from '../dashboard/sessions/users.repository';

export interface OverviewReply {
  account: { id: string; name: string; email: string };
  plan: PlanName;
  limits: { requests_per_minute: number; parallel_tasks: number };
  credits: { available: number; held: number };
  active_keys: number;
  recent_generations: GenerationRecord[];
}

/** The webhook deliveries of a generation (oldest first), when the webhooks service can tell. */
export interface DeliveriesView {
  available: boolean;
  /** Why they cannot be shown, when `available` is false. */
  message: string | null;
  data: WebhookDeliveryView[];
}

export interface GenerationDetailReply {
  generation: GenerationRecord;
  deliveries: DeliveriesView;
}

const RECENT = 5;

/** What the dashboard shows of an account's credits and generations; every read is the session's account. */
@Injectable()
export class DashboardGenerationsService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly plans: AccountPlanService,
    private readonly keys: ApiKeysService,
  ) {}

  async overview(session: LiveSession): Promise<OverviewReply> {
    const [balance, recent, keys] = await Promise.all([
      this.plans.fresh(session.accountId),
      this.list(session.accountId, { limit: RECENT }),
      this.keys.list(session.accountId),
    ]);
    return {
      account: { id: session.accountId, name: session.accountName, email: session.email },
      plan: balance.plan,
      limits: balance.limits,
      credits: { available: balance.available, held: balance.held },
      active_keys: keys.filter((k) => k.revokedAt === null).length,
      recent_generations: recent.data,
    };
  }

  list(accountId: string, query: ListGenerationsQueryDto): Promise<ListGenerationsReply> {
    return this.rpc.request<ListGenerationsReply, ListGenerationsRequest>(Subjects.generationList, {
      accountId,
      limit: query.limit ?? 20,
      cursor: query.cursor,
      status: query.status,
      type: query.type,
    });
  }

  /**
   * The record and its webhook deliveries with their attempts; 404 for another account's generation
   * (generation.get is scoped by account). If the webhooks service does not answer, the record is
   * still shown, with the deliveries marked unavailable.
   */
  async detail(accountId: string, jobId: string): Promise<GenerationDetailReply> {
    const generation = await this.generation(accountId, jobId);
    try {
      const reply = await this.rpc.request<ListWebhookDeliveriesReply, ListWebhookDeliveriesRequest>(Subjects.webhooksDeliveriesList, {
        accountId,
        jobId,
      });
      return { generation, deliveries: { available: true, message: null, data: reply.data } };
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'service_unavailable')) throw error;
      return {
        generation,
        deliveries: { available: false, message: 'The delivery log cannot be read right now. Reload the page in a moment.', data: [] },
      };
    }
  }

  /** Sends a finished generation's event again, as a new delivery, to the generation's destination. */
  async redeliver(accountId: string, jobId: string): Promise<RedeliverWebhookReply> {
    const generation = await this.generation(accountId, jobId);
    if (generation.status !== 'completed' && generation.status !== 'failed') {
      throw new ConflictError('This generation has not finished; its webhook is sent when it does.');
    }
    return this.rpc.request<RedeliverWebhookReply, RedeliverWebhookRequest>(Subjects.webhooksRedeliver, { accountId, jobId });
  }

  /** Cancels a queued or running generation of the account (the same use case as the API's cancel). */
  async cancel(accountId: string, jobId: string): Promise<GenerationRecord> {
    const reply = await this.rpc.request<CancelGenerationReply, CancelGenerationRequest>(Subjects.generationCancel, { accountId, jobId });
    return reply.record;
  }

  private generation(accountId: string, jobId: string): Promise<GenerationRecord> {
    return this.rpc.request<GenerationRecord, GetGenerationRequest>(Subjects.generationGet, { accountId, jobId });
  }
}
