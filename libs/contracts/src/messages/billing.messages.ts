import { IsArray, IsIn, IsNumber, IsOptional, IsString } from 'class-validator';
import { PLANS, PlanName } from '../shared/generation';

/**
 * The requests billing answers. Each is checked on receipt by the transport against these
 * decorators (PAYLOAD_CLASSES): the shape and types only; the rules of the domain (a positive
 * amount, a cap of at least 1) stay with the service, which words them for the customer.
 */
export const HOLD_LANES = ['interactive', 'background'] as const;
export type HoldLane = (typeof HOLD_LANES)[number];

export class ReserveCreditsRequest {
  @IsString() accountId!: string;
  @IsString() jobId!: string;
  @IsString() modelId!: string;
  @IsNumber() amount!: number;
  @IsNumber() minimum!: number;
  /** The API key of the submit: its spending caps apply (docs/guide/limits.md). Absent: no key, no cap. */
  @IsOptional() @IsString() apiKeyId?: string;
  /**
   * `background`: nobody waits on this hold right now (a batch line's), so it is written in a group
   * of its own and a submit's hold never queues behind it. Absent: `interactive`.
   */
  @IsOptional() @IsIn(HOLD_LANES) lane?: HoldLane;
}

export class ReleaseCreditsRequest {
  @IsString() accountId!: string;
  @IsString() jobId!: string;
  @IsString() reason!: string;
}

export class BalanceRequest {
  @IsString() accountId!: string;
}

export class OpenBillingAccountRequest {
  @IsString() accountId!: string;
  @IsIn(PLANS) plan!: PlanName;
  @IsNumber() initialCredits!: number;
}

export class ListKeyCapsRequest {
  @IsString() accountId!: string;
  /** These keys, each with a row even without caps or spend; absent: every key with either. */
  @IsOptional() @IsArray() @IsString({ each: true }) keyIds?: string[];
}

/** A number sets a cap, null removes it, an absent field keeps it. Caps are whole credits, at least 1. */
export class SetKeyCapsRequest {
  @IsString() accountId!: string;
  @IsString() keyId!: string;
  @IsOptional() @IsNumber() perDay?: number | null;
  @IsOptional() @IsNumber() perMonth?: number | null;
}

export class GetLowBalanceRequest {
  @IsString() accountId!: string;
}

/** `threshold`: a whole number of credits from 0 to MAX_LOW_BALANCE_THRESHOLD; 0 or null turns alerts off. */
export class SetLowBalanceRequest {
  @IsString() accountId!: string;
  @IsOptional() @IsNumber() threshold!: number | null;
}

/** A page of the account's credit ledger, newest first (`GET /api/v1/credits/ledger`). */
export class LedgerRequest {
  @IsString() accountId!: string;
  @IsNumber() limit!: number;
  /** `next_cursor` of the previous page. */
  @IsOptional() @IsString() cursor?: string;
}

/** Spending (captured credits) per day and per model over the last `days` days, in UTC. */
export class UsageRequest {
  @IsString() accountId!: string;
  @IsNumber() days!: number;
}
