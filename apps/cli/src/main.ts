import 'reflect-metadata';
import { ACCOUNTS } from './commands/accounts.commands';
import { AUDIT } from './commands/audit.commands';
import { CREDITS } from './commands/credits.commands';
import { PACKS } from './commands/packs.commands';
import { DELIVERIES } from './commands/deliveries.commands';
import { JOBS } from './commands/jobs.commands';
import { KEYS } from './commands/keys.commands';
import { MIGRATE } from './commands/migrate.commands';
import { MODELS } from './commands/models.commands';
import { PLANS_COMMANDS } from './commands/plans.commands';
import { EXIT } from './context/command-spec';
import { parseAndRun } from './program';
import { runCommand } from './run-command';

/**
 * The operator CLI: accounts, keys, credits, plans, audit, jobs, models, deliveries and migrations,
 * straight against the services' own modules and repositories. Exit codes: 0 done, 1 refused,
 * 2 usage, 3 failed. One file per command group under commands/.
 */
const GROUPS = [ACCOUNTS, KEYS, CREDITS, AUDIT, MIGRATE, JOBS, MODELS, DELIVERIES, PLANS_COMMANDS, PACKS];

parseAndRun(process.argv.slice(2), GROUPS, runCommand).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('cli failed:', error);
    process.exit(EXIT.failed);
  },
);
