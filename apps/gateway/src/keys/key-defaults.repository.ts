import { Inject, Injectable } from '@nestjs/common';
import { readRows, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';

/** The caps every new dashboard key of an account gets; null: none. */
export interface KeyCapDefaults {
  per_day: number | null;
  per_month: number | null;
}

/** An account's defaults for new keys (`auth.accounts`, migration 1766036000000). */
@Injectable()
export class KeyDefaultsRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  async get(accountId: string): Promise<KeyCapDefaults> {
    const [row] = await readRows<{ per_day: number | null; per_month: number | null }>(
      this.db,
      `SELECT default_key_cap_per_day AS per_day, default_key_cap_per_month AS per_month FROM accounts WHERE id = $1`,
      [accountId],
    );
    return row ?? { per_day: null, per_month: null };
  }

  /** Sets the fields given (absent keeps); one statement, so concurrent changes to the two fields both land. */
  async set(accountId: string, change: Partial<KeyCapDefaults>): Promise<KeyCapDefaults> {
    const [row] = await sqlRows<{ per_day: number | null; per_month: number | null }>(
      this.db,
      `UPDATE accounts
          SET default_key_cap_per_day = CASE WHEN $2 THEN $3::integer ELSE default_key_cap_per_day END,
              default_key_cap_per_month = CASE WHEN $4 THEN $5::integer ELSE default_key_cap_per_month END
        WHERE id = $1
        RETURNING default_key_cap_per_day AS per_day, default_key_cap_per_month AS per_month`,
      [accountId, change.per_day !== undefined, change.per_day ?? null, change.per_month !== undefined, change.per_month ?? null],
    );
    return row ?? { per_day: null, per_month: null };
  }
}
