import { Injectable } from '@nestjs/common';
import type { AuditActor } from '../audit-log/audit-actions';
import { AuditService } from '../audit-log/audit.service';
import { KeyCapDefaults, KeyDefaultsRepository } from './key-defaults.repository';

export interface SetKeyDefaultsCommand {
  accountId: string;
  actor: AuditActor;
  /** A number sets a default cap, null removes it, an absent field keeps it. */
  per_day?: number | null;
  per_month?: number | null;
}

/**
 * The caps every new dashboard key of the account gets (docs/guide/limits.md, "Spending caps"). Keys
 * that exist keep theirs: a default is where a new key starts, changed per key by an admin.
 */
@Injectable()
export class SetKeyDefaults {
  constructor(
    private readonly defaults: KeyDefaultsRepository,
    private readonly audit: AuditService,
  ) {}

  get(accountId: string): Promise<KeyCapDefaults> {
    return this.defaults.get(accountId);
  }

  async execute({ accountId, actor, per_day, per_month }: SetKeyDefaultsCommand): Promise<KeyCapDefaults> {
    const set = await this.defaults.set(accountId, { per_day, per_month });
    await this.audit.record({ accountId, actor, action: 'account.key_defaults_set', target: accountId, details: { ...set } });
    return set;
  }
}
