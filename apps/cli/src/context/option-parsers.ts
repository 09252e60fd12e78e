/** The operator CLI's value parsers: each refuses a bad value with a message naming its option (exit 2). */
import { isUuid, PlanName, PLANS } from '@gen/contracts';
import { NotFoundError, ValidationError } from '@gen/errors';

/** Options that name a record by id, and where the operator finds the ids. */
const ID_OPTIONS: Record<string, { what: string; listedBy: string }> = {
  account: { what: 'account', listedBy: 'accounts list' },
  key: { what: 'key', listedBy: 'keys list --account <account-id>' },
  job: { what: 'job', listedBy: 'jobs list' },
};

/**
 * Ids are UUIDs: anything else names no record, and is refused here (exit 1, as for an unknown id)
 * rather than sent to PostgreSQL, whose answer would be a type error.
 */
export function checkIds(options: Record<string, string | boolean | undefined>): void {
  for (const [name, { what, listedBy }] of Object.entries(ID_OPTIONS)) {
    const value = options[name];
    if (typeof value !== 'string') continue;
    const shown = value.slice(0, 60);
    if (!isUuid(value)) throw new NotFoundError(`No ${what} "${shown}": ${what} ids are UUIDs such as 2ceb6409-d7cd-4eba-af2e-3b855a1d1387 (see ${listedBy}).`);
  }
}

/** `--since`: an ISO 8601 time, or a duration before now (90s, 15m, 2h, 1d). */
export function parseSince(value: string | undefined, now = Date.now()): Date {
  if (value === undefined) throw new ValidationError('--since is required');
  if (/^\d{1,9}[smhd]?$/.test(value.trim())) return new Date(now - (parseDuration('since', value) as number) * 1000);
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time)) {
    throw new ValidationError('--since must be an ISO 8601 time (2026-11-21T10:00:00Z) or a duration such as 90m, 2h or 1d');
  }
  return new Date(time);
}

const DURATION_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Parses 90s, 15m, 2h, 1d (or plain seconds) into seconds. */
export function parseDuration(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d{1,9})([smhd]?)$/.exec(value.trim());
  if (!match) throw new ValidationError(`--${name} must be a duration such as 90s, 15m, 2h or 1d`);
  return Number(match[1]) * DURATION_UNITS[match[2] || 's'];
}

export function parseInteger(name: string, value: string | undefined, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new ValidationError(`--${name} is required`);
    return fallback;
  }
  if (!/^-?\d+$/.test(value)) throw new ValidationError(`--${name} must be an integer`);
  return Number(value);
}

/** `--per-day` / `--per-month`: a cap (a whole number from 1), `none` (remove it), or absent (keep it). */
export function parseCap(name: string, value: string | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === 'none') return null;
  if (!/^\d{1,10}$/.test(value.trim()) || Number(value) < 1 || Number(value) > 2_147_483_647) {
    throw new ValidationError(`--${name} must be a whole number of credits from 1 to 2147483647, or none to remove the cap`);
  }
  return Number(value);
}

/** `--sync true|false`. */
export function parseBoolean(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new ValidationError(`--${name} must be true or false`);
}

/** `--engine '<json>'`: the binding object. */
export function parseJsonObject(name: string, value: string | undefined): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new ValidationError(`--${name} is not valid JSON (${(error as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ValidationError(`--${name} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

export function parsePlan(value: string | undefined, fallback?: PlanName): PlanName {
  const plan = value ?? fallback;
  if (!plan || !(PLANS as readonly string[]).includes(plan)) throw new ValidationError(`--plan must be one of ${PLANS.join(', ')}`);
  return plan as PlanName;
}
