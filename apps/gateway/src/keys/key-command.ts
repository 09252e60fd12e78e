import type { AuditActor } from '../audit-log/audit-actions';

/** What every change to one of an account's keys is given: the account, the key and who does it (the audit log's actor). */
export interface KeyCommand {
  accountId: string;
  keyId: string;
  actor: AuditActor;
}
