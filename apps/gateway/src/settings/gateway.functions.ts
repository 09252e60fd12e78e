import { join } from 'node:path';

/**
 * Every PL/pgSQL function of the auth schema, each in its `.sql` file beside the code it serves: the
 * file is the function's current text, installed by the migration that pins it, and the schema spec
 * fails when the database and a file disagree (CONTRIBUTING.md, "Data").
 */
export const GATEWAY_FUNCTIONS = {
  announceApiKeyChange: join(__dirname, '..', 'auth', 'announce-api-key-change.function.sql'),
  auditLogAppendOnly: join(__dirname, '..', 'audit-log', 'audit-log-append-only.function.sql'),
  purgeAuditLog: join(__dirname, '..', 'audit-log', 'purge-audit-log.function.sql'),
} as const;
