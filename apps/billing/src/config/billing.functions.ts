import { join } from 'node:path';

/**
 * Every PL/pgSQL function of the billing schema, each in its `.sql` file beside the code that calls
 * it: the file is the function's current text, installed by the migration that pins it, and the
 * schema spec fails when the database and a file disagree (CONTRIBUTING.md, "Data").
 */
export const BILLING_FUNCTIONS = {
  reserveBatch: join(__dirname, '..', 'holds', 'reserve-batch.function.sql'),
  settleBatch: join(__dirname, '..', 'holds', 'settle-batch.function.sql'),
  lowBalanceCrossing: join(__dirname, '..', 'low-balance', 'low-balance-crossing.function.sql'),
  announceAccountChange: join(__dirname, '..', 'accounts', 'announce-account-change.function.sql'),
} as const;
