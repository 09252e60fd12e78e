import type { PlanName } from '../shared/generation';

/**
 * What billing answers (replies are read by the service that asked, which built the request; they
 * are not checked on receipt). Interfaces, free of decorators: the dashboard shows several as they are.
 */
export interface ReserveCreditsReply {
  holdId: string;
  available: number;
}
export interface BalanceReply {
  accountId: string;
  plan: PlanName;
  available: number;
  held: number;
  limits: { requests_per_minute: number; parallel_tasks: number };
}

/** An API key's spending caps (credits per UTC day and month; null: none) and its spend so far. */
export interface KeyCapView {
  key_id: string;
  per_day: number | null;
  per_month: number | null;
  /** Credits held or charged today (UTC); refunds of failed generations are given back. */
  spent_today: number;
  spent_this_month: number;
  /** When the day's and the month's spend start again from 0 (ISO 8601, UTC). */
  day_resets_at: string;
  month_resets_at: string;
}
export interface ListKeyCapsReply {
  data: KeyCapView[];
}

/**
 * An account's low-balance alert setting (docs/guide/limits.md, "Low-balance alerts"): a whole number of
 * credits; null when alerts are off. `below` is true while the current crossing has been alerted.
 */
export interface LowBalanceView {
  threshold: number | null;
  available: number;
  below: boolean;
}
/** The largest threshold accepted (credits): PostgreSQL's integer. */
export const MAX_LOW_BALANCE_THRESHOLD = 2_147_483_647;

/** Kinds of ledger rows, as billing stores them. */
export const LEDGER_KINDS = ['grant', 'adjustment', 'hold', 'capture', 'release'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** One ledger row as API clients see it (snake_case: it goes to them as is). */
export interface LedgerEntryView {
  id: string;
  kind: LedgerKind;
  /** Signed change to the available credits (a hold is negative, a release positive, a capture 0). */
  amount: number;
  /** Signed change to the held credits (a hold is positive, a capture or release negative). */
  held_change: number;
  /** Available credits right after this entry. */
  balance_after: number;
  /** The generation it belongs to (holds, captures, releases); null for grants and adjustments. */
  generation_id: string | null;
  /** The model of that generation, when billing knows it (entries made before it was recorded: null). */
  model: string | null;
  created_at: string;
  note: string | null;
}
export interface LedgerReply {
  data: LedgerEntryView[];
  next_cursor: string | null;
}
export interface UsageDay {
  /** `YYYY-MM-DD` (UTC). */
  date: string;
  credits: number;
  generations: number;
  /** Credits per model that day (models with none are left out; `unknown` for entries without a model). */
  by_model: Record<string, number>;
}
export interface UsageModel {
  model: string;
  credits: number;
  generations: number;
}
export interface UsageReply {
  /** First and last day covered (UTC), `days` days in all, oldest first in `days`. */
  from: string;
  to: string;
  days: UsageDay[];
  /** Most credits first. */
  models: UsageModel[];
  total: { credits: number; generations: number; refunds: number };
}
