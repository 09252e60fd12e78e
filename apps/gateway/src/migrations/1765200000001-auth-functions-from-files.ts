import { installSqlFunctions, restoreFunctionsOf } from '@gen/persistence';
import { MigrationInterface, QueryRunner } from 'typeorm';
import { GATEWAY_FUNCTIONS as F } from '../settings/gateway.functions';
import { AuthKeyChangeNotify1764840000000 } from './1764840000000-auth-key-change-notify';
import { AuthAuditLog1764870000001 } from './1764870000001-auth-audit-log';

/**
 * The PL/pgSQL functions move into `.sql` files beside the code they serve (see gateway.functions.ts):
 * each is installed from its file, the same function as before (the text re-indented). The hashes
 * pin the text this migration installs; a later change to a file comes with its own migration.
 */
export class AuthFunctionsFromFiles1765200000001 implements MigrationInterface {
  name = 'AuthFunctionsFromFiles1765200000001';

  async up(q: QueryRunner): Promise<void> {
    await installSqlFunctions(q, [
      [F.announceApiKeyChange, 'c857b05ab33a7c6b'],
      [F.auditLogAppendOnly, 'fa2b94f93354ba6c'],
      [F.purgeAuditLog, 'f2ea6b400824387a'],
    ]);
  }

  /** Each function as the migration that last shaped it wrote it. */
  async down(q: QueryRunner): Promise<void> {
    await restoreFunctionsOf(q, new AuthKeyChangeNotify1764840000000(), ['announce_api_key_change']);
    await restoreFunctionsOf(q, new AuthAuditLog1764870000001(), ['audit_log_append_only', 'purge_audit_log']);
  }
}
