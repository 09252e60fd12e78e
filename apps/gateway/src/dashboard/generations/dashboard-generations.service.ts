import { Injectable } from '@nestjs/common';
import {
  GenerationRecord,
  GetGenerationRequest,
  ListGenerationsReply,
  ListGenerationsRequest,
  PlanName,
  Subjects,
} from '@gen/contracts';
import { RpcClient } from '@gen/transport';
import { AccountPlanService } from '../../api/account-plan.service';
import type { ListGenerationsQueryDto } from '../../api/list-generations-query.dto';
import { ApiKeysService } from '../../auth/api-keys.service';
import type { LiveSession } from '../sessions/users.repository';

export interface OverviewReply {
  account: { id: string; name: string; email: string };
  plan: PlanName;
  limits: { requests_per_minute: number; parallel_tasks: number };
  credits: { available: number; held: number };
  active_keys: number;
  recent_generations: GenerationRecord[];
}

/** The webhook deliveries of a generation, when the webhooks service can tell. */
export interface DeliveriesView {
  available: boolean;
  /** Why they cannot be shown, when `available` is false. */
  message: string | null;
  data: unknown[];
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

  /** 404 for another account's generation (generation.get is scoped by account). */
  async detail(accountId: string, jobId: string): Promise<GenerationDetailReply> {
    const generation = await this.rpc.request<GenerationRecord, GetGenerationRequest>(Subjects.generationGet, { accountId, jobId });
    return {
      generation,
      deliveries: {
        available: false,
        message: 'The delivery log is not available on this deployment yet; poll the generation or check your receiver.',
        data: [],
      },
    };
  }
}
