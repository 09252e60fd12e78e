import { GENERATION_TYPES, PLANS, PlanName } from '@gen/contracts';
import { NotFoundError, ValidationError } from '@gen/errors';

export interface CommandSpec {
  summary: string;
  options: Record<string, { description: string; required?: boolean; flag?: boolean }>;
  /**
   * Whether the command makes sense on an empty database, so that it may create the standalone data
   * folder when there is none. Every other command refuses to create one (it would only find nothing).
   */
  mayCreateData?: true;
}

/** Exit codes (README, "Operator CLI"). */
export const EXIT = { ok: 0, refused: 1, usage: 2, failed: 3 } as const;

/** The fields of `models add` and `models update` (all required to add, any to update). */
function modelOptions(adding: boolean): CommandSpec['options'] {
  return {
    id: { description: 'model id: a-z, 0-9, ".", "_", "-" (what clients send as "model")', required: true },
    name: { description: 'display name', required: adding },
    type: { description: GENERATION_TYPES.join(', '), required: adding },
    credits: { description: 'price in credits, charged on success', required: adding },
    minimum: { description: 'credits an account must have available to submit', required: adding },
    plan: { description: `lowest plan that may use it: ${PLANS.join(', ')}`, required: adding },
    sync: { description: 'true: POST /generate waits for the result; false: answers 202 at once', required: adding },
    engine: { description: `engine binding as JSON, e.g. '{"engine":"replicate","upstreamModel":"owner/name","tokenEnv":"REPLICATE_API_TOKEN"}'`, required: adding },
    inputs: { description: `the inputs customers may give, a JSON Schema object, e.g. '{"type":"object","properties":{"seed":{"type":"integer","minimum":0}},"additionalProperties":false}'` },
    'price-multipliers': { description: "comma-separated numeric inputs the price is multiplied by, e.g. num_outputs ('' for none)" },
  };
}

/** Every command the operator CLI knows, for parsing and for --help. */
export const COMMANDS: Record<string, CommandSpec> = {
  'accounts create': {
    summary: 'Create an account with a plan and credits, and its first API key (printed once).',
    options: {
      name: { description: 'account name', required: true },
      plan: { description: `plan: ${PLANS.join(', ')} (default free)` },
      credits: { description: 'opening credits (default 0)' },
      'key-name': { description: 'name of the first key (default "default")' },
      email: { description: 'also a dashboard sign-in for this email, with a generated password (printed once)' },
    },
    mayCreateData: true,
  },
  'accounts list': { summary: 'List accounts with plan and balance.', options: {} },
  'accounts set-low-balance': {
    summary: "Set an account's low-balance alert threshold: when its available credits fall below it, its owners get a mail and its keys' webhook URLs an account.low_balance event (once per crossing).",
    options: {
      account: { description: 'account id', required: true },
      credits: { description: "the threshold in credits, a whole number from 0; 0 or 'none' turns alerts off", required: true },
    },
  },
  'keys create': {
    summary: 'Create an API key for an account (printed once).',
    options: {
      account: { description: 'account id', required: true },
      name: { description: 'key name', required: true },
      scopes: { description: 'comma-separated: generate,read (default both)' },
    },
  },
  'keys list': {
    summary: "List an account's keys, with each one's default webhook URL and whether it has a signing secret.",
    options: { account: { description: 'account id', required: true } },
  },
  'keys secret': {
    summary:
      "Generate a key's webhook signing secret, or renew it (printed once; signatures with the old one fail at once); " +
      'with --overlap, a key on the standard scheme rotates instead: both secrets sign each delivery for that long.',
    options: {
      account: { description: 'account id', required: true },
      key: { description: 'key id', required: true },
      overlap: { description: 'standard scheme only: how long the old secret keeps signing too, 1s to 24h (e.g. 30m, 2h)' },
    },
  },
  'keys set-webhook-scheme': {
    summary: "Choose how a key's webhooks are signed: service (X-Service-* headers, the default) or standard (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature).",
    options: {
      account: { description: 'account id', required: true },
      key: { description: 'key id', required: true },
      scheme: { description: 'standard or service', required: true },
    },
  },
  'keys set-webhook-url': {
    summary: "Set a key's default webhook URL (checked as the dashboard checks it; generates the signing secret if none), or remove it with --url ''.",
    options: {
      account: { description: 'account id', required: true },
      key: { description: 'key id', required: true },
      url: { description: "https URL (http and private addresses only where WEBHOOK_ALLOW_* allow them); '' removes it", required: true },
    },
  },
  'keys revoke': {
    summary: 'Revoke a key: 401 at once on every gateway told over NATS (NATS_URL set), else within 10 s (their key cache).',
    options: { account: { description: 'account id', required: true }, key: { description: 'key id', required: true } },
  },
  'keys set-cap': {
    summary: "Set a key's spending caps in credits per UTC day and per UTC month: a submit whose hold would pass one is refused (402 spending_cap_reached).",
    options: {
      account: { description: 'account id', required: true },
      key: { description: 'key id', required: true },
      'per-day': { description: "credits per UTC day, a whole number from 1; 'none' removes the cap; omitted keeps it" },
      'per-month': { description: "credits per UTC month, a whole number from 1; 'none' removes the cap; omitted keeps it" },
    },
  },
  'credits grant': {
    summary: 'Add credits (or remove them with a negative amount).',
    options: {
      account: { description: 'account id', required: true },
      amount: { description: 'integer, may be negative', required: true },
      note: { description: 'reason, kept in the ledger' },
    },
  },
  'audit list': {
    summary: "List an account's audit log, newest first: who (user or operator), when, from which address, did what.",
    options: {
      account: { description: 'account id', required: true },
      actor: { description: 'only entries of this actor (an email, or an operator name)' },
      action: { description: 'only this action, e.g. key.revoked, user.sign_in_failed (docs/guide/dashboard.md, "Audit log")' },
      limit: { description: 'at most this many (default 50, max 1000)' },
    },
  },
  migrate: {
    summary: "Apply every service's pending database migrations (auth, billing, generation, webhooks) and exit.",
    options: {
      'create-database': { description: 'first create the database DATABASE_URL names, if it does not exist', flag: true },
    },
    mayCreateData: true,
  },
  'jobs list': {
    summary: 'List jobs across accounts, oldest first (find stuck ones).',
    options: {
      status: { description: 'queued, processing, completed or failed' },
      'older-than': { description: 'in that state for longer than this: 90s, 15m, 2h, 1d (queued: since submit; processing: since start)' },
      account: { description: 'only this account id' },
      limit: { description: 'at most this many (default 50, max 1000)' },
    },
  },
  'jobs inspect': {
    summary: "Show a job: state, attempts, lease, its events in the outbox and its credit hold.",
    options: { job: { description: 'job (generation) id', required: true } },
  },
  'jobs fail': {
    summary: 'Fail a stuck queued or processing job; its credits are refunded through the generation.failed event.',
    options: {
      job: { description: 'job (generation) id', required: true },
      reason: { description: 'why, for the operator log (the customer sees a standard message)', required: true },
      force: { description: 'also when a worker still holds a live lease on it', flag: true },
    },
  },
  'models list': { summary: 'List the model catalogue: price, minimum, plan, sync, status and engine binding.', options: {} },
  'models add': {
    summary: 'Add a model to the catalogue (every gateway and generation replica serves it within seconds).',
    options: modelOptions(true),
    mayCreateData: true,
  },
  'models update': {
    summary: "Change a model's fields; the others keep their values. A new price applies to new submits only.",
    options: modelOptions(false),
  },
  'models disable': {
    summary: 'Stop accepting submits for a model (422); it stays listed as unavailable; accepted jobs still run.',
    options: { id: { description: 'model id', required: true } },
  },
  'models enable': { summary: 'Accept submits for a disabled model again.', options: { id: { description: 'model id', required: true } } },
  'models sync': {
    summary: 'Make the catalogue equal a JSON file {"models": [...]} (declarative, idempotent); models not in it are disabled.',
    options: { file: { description: 'path of the catalogue file; refused whole if any entry is invalid', required: true } },
    mayCreateData: true,
  },
  'deliveries retry': {
    summary: 'Send again every webhook whose latest delivery failed since a time (after an endpoint is fixed).',
    options: {
      since: { description: 'failed at or after this: an ISO 8601 time, or a duration ago (90m, 2h, 1d)', required: true },
      account: { description: 'only this account id' },
      limit: { description: 'at most this many generations (default 500, max 10000)' },
      'dry-run': { description: 'list what would be sent, send nothing', flag: true },
    },
  },
  'plans set': {
    summary: "Change an account's plan and, for pro/enterprise, its limits.",
    options: {
      account: { description: 'account id', required: true },
      plan: { description: PLANS.join(', '), required: true },
      rpm: { description: 'requests per minute (pro: 60-200)' },
      parallel: { description: 'parallel tasks (pro: 3-25)' },
    },
  },
};

function commandLines(name: string, spec: CommandSpec): string[] {
  const lines = [`  ${name.padEnd(16)} ${spec.summary}`];
  for (const [option, o] of Object.entries(spec.options)) {
    lines.push(`      --${option.padEnd(12)} ${o.description}${o.required ? ' (required)' : ''}`);
  }
  return lines;
}

/** The whole help, or one command's. */
export function usage(command?: string): string {
  if (command && COMMANDS[command]) {
    return [`Usage: npm run cli -- ${command} [--option value ...] [--json]`, '', ...commandLines(command, COMMANDS[command])].join('\n');
  }
  const lines = ['Usage: npm run cli -- <command> [--option value ...] [--json]', '', 'Commands:'];
  for (const [name, spec] of Object.entries(COMMANDS)) lines.push(...commandLines(name, spec));
  lines.push(
    '',
    'Options for every command: --json (machine-readable output on stdout), --help.',
    'Exit codes: 0 done, 1 refused (the message says why), 2 usage error, 3 failed (e.g. database unreachable).',
    'Database: DATABASE_URL when set; otherwise the standalone data folder (DATA_DIR, default .data), which only',
    'accounts create, migrate, models add and models sync create when it does not exist yet.',
    'NATS: with DATABASE_URL and NATS_URL (and NATS_SUBJECT_PREFIX as the services have it), key and plan changes',
    'reach the running gateways at once; otherwise they see them within seconds (their caches).',
  );
  return lines.join('\n');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
    if (typeof value === 'string' && !UUID.test(value)) {
      throw new NotFoundError(`No ${what} "${value.slice(0, 60)}": ${what} ids are UUIDs such as 2ceb6409-d7cd-4eba-af2e-3b855a1d1387 (see ${listedBy}).`);
    }
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
