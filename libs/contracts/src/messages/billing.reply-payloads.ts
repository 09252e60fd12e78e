import { IsBoolean, IsIn, IsNumber, IsObject, IsString } from 'class-validator';
import { PLANS, PlanName } from '../shared/generation';
import { Nested, Nullable } from '../validation';
import type {
  BalanceReply,
  KeyCapView,
  LedgerEntryView,
  LedgerKind,
  LedgerReply,
  ListKeyCapsReply,
  LowBalanceView,
  ReserveCreditsReply,
  UsageDay,
  UsageModel,
  UsageReply,
} from './billing.replies';
import { LEDGER_KINDS } from './billing.replies';

/**
 * Billing's replies as classes, so the message contract (docs/design/messages.asyncapi.yaml) is
 * derived from decorators like the requests are. Replies are not checked on receipt; the interfaces
 * in billing.replies.ts stay what code and the dashboard read, and `implements` keeps the two in step.
 */
export class ReserveCreditsReplyPayload implements ReserveCreditsReply {
  @IsString() holdId!: string;
  @IsNumber() available!: number;
}

/** `billing.release`: the hold is released (or was already). */
export class ReleaseCreditsReplyPayload {
  @IsIn([true]) ok!: true;
}

export class PlanLimitsPayload {
  @IsNumber() requests_per_minute!: number;
  @IsNumber() parallel_tasks!: number;
}

/** `billing.balance` and `billing.account.open`. */
export class BalanceReplyPayload implements BalanceReply {
  @IsString() accountId!: string;
  @IsIn(PLANS) plan!: PlanName;
  @IsNumber() available!: number;
  @IsNumber() held!: number;
  @Nested(() => PlanLimitsPayload) limits!: PlanLimitsPayload;
}

/** `billing.key-caps.set` answers one; `billing.key-caps.list` a list. */
export class KeyCapViewPayload implements KeyCapView {
  @IsString() key_id!: string;
  @Nullable() @IsNumber() per_day!: number | null;
  @Nullable() @IsNumber() per_month!: number | null;
  @IsNumber() spent_today!: number;
  @IsNumber() spent_this_month!: number;
  @IsString() day_resets_at!: string;
  @IsString() month_resets_at!: string;
}

export class ListKeyCapsReplyPayload implements ListKeyCapsReply {
  @Nested(() => KeyCapViewPayload, { each: true }) data!: KeyCapViewPayload[];
}

/** `billing.low-balance.get` and `billing.low-balance.set`. */
export class LowBalanceViewPayload implements LowBalanceView {
  @Nullable() @IsNumber() threshold!: number | null;
  @IsNumber() available!: number;
  @IsBoolean() below!: boolean;
}

export class LedgerEntryViewPayload implements LedgerEntryView {
  @IsString() id!: string;
  @IsIn(LEDGER_KINDS) kind!: LedgerKind;
  @IsNumber() amount!: number;
  @IsNumber() held_change!: number;
  @IsNumber() balance_after!: number;
  @Nullable() @IsString() generation_id!: string | null;
  @Nullable() @IsString() model!: string | null;
  @IsString() created_at!: string;
  @Nullable() @IsString() note!: string | null;
}

export class LedgerReplyPayload implements LedgerReply {
  @Nested(() => LedgerEntryViewPayload, { each: true }) data!: LedgerEntryViewPayload[];
  @Nullable() @IsString() next_cursor!: string | null;
}

export class UsageDayPayload implements UsageDay {
  @IsString() date!: string;
  @IsNumber() credits!: number;
  @IsNumber() generations!: number;
  @IsObject() by_model!: Record<string, number>;
}

export class UsageModelPayload implements UsageModel {
  @IsString() model!: string;
  @IsNumber() credits!: number;
  @IsNumber() generations!: number;
}

export class UsageTotalPayload {
  @IsNumber() credits!: number;
  @IsNumber() generations!: number;
  @IsNumber() refunds!: number;
}

export class UsageReplyPayload implements UsageReply {
  @IsString() from!: string;
  @IsString() to!: string;
  @Nested(() => UsageDayPayload, { each: true }) days!: UsageDayPayload[];
  @Nested(() => UsageModelPayload, { each: true }) models!: UsageModelPayload[];
  @Nested(() => UsageTotalPayload) total!: UsageTotalPayload;
}

