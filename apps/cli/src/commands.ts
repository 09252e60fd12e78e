import { PLANS, PlanName } from '@gen/contracts';
import { ValidationError } from '@gen/errors';

export interface CommandSpec {
  summary: string;
  options: Record<string, { description: string; required?: boolean }>;
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
    },
  },
  'accounts list': { summary: 'List accounts with plan and balance.', options: {} },
  'keys create': {
    summary: 'Create an API key for an account (printed once).',
    options: {
      account: { description: 'account id', required: true },
      name: { description: 'key name', required: true },
      scopes: { description: 'comma-separated: generate,read (default both)' },
    },
  },
  'keys list': { summary: "List an account's keys.", options: { account: { description: 'account id', required: true } } },
  'keys revoke': {
    summary: 'Revoke a key (it gets 401 at once).',
    options: { account: { description: 'account id', required: true }, key: { description: 'key id', required: true } },
  },
  'credits grant': {
    summary: 'Add credits (or remove them with a negative amount).',
    options: {
      account: { description: 'account id', required: true },
      amount: { description: 'integer, may be negative', required: true },
      note: { description: 'reason, kept in the ledger' },
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

export function usage(): string {
  const lines = ['Usage: npm run cli -- <command> [--option value ...] [--json]', '', 'Commands:'];
  for (const [name, spec] of Object.entries(COMMANDS)) {
    lines.push(`  ${name.padEnd(16)} ${spec.summary}`);
    for (const [option, o] of Object.entries(spec.options)) {
      lines.push(`      --${option.padEnd(12)} ${o.description}${o.required ? ' (required)' : ''}`);
    }
  }
  lines.push('', 'Database: DATABASE_URL when set; otherwise the standalone data folder (DATA_DIR, default .data).');
  return lines.join('\n');
}

export function parseInteger(name: string, value: string | undefined, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new ValidationError(`--${name} is required`);
    return fallback;
  }
  if (!/^-?\d+$/.test(value)) throw new ValidationError(`--${name} must be an integer`);
  return Number(value);
}

export function parsePlan(value: string | undefined, fallback?: PlanName): PlanName {
  const plan = value ?? fallback;
  if (!plan || !(PLANS as readonly string[]).includes(plan)) throw new ValidationError(`--plan must be one of ${PLANS.join(', ')}`);
  return plan as PlanName;
}
