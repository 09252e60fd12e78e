import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';

/** What the gateway knows for low-balance alerts: where the webhook goes, what was mailed. */
@Injectable()
export class LowBalanceRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /**
   * Where the account's events go: each distinct default webhook URL of its live keys that can sign
   * (a secret), with the oldest such key, whose secret signs it.
   */
  accountWebhooks(accountId: string): Promise<Array<{ apiKeyId: string; url: string }>> {
    return sqlRows<{ apiKeyId: string; url: string }>(
      this.db,
      `SELECT DISTINCT ON (webhook_url) id AS "apiKeyId", webhook_url AS url
         FROM api_keys
        WHERE account_id = $1 AND revoked_at IS NULL AND webhook_url IS NOT NULL AND webhook_secret IS NOT NULL
        ORDER BY webhook_url, created_at, id`,
      [accountId],
    );
  }

  async accountName(accountId: string): Promise<string | null> {
    const [row] = await sqlRows<{ name: string }>(this.db, `SELECT name FROM accounts WHERE id = $1`, [accountId]);
    return row?.name ?? null;
  }

  /** The recipients of the event already mailed (an event handled again mails only the others). */
  async mailed(eventId: string): Promise<Set<string>> {
    const rows = await sqlRows<{ email_key: string }>(this.db, `SELECT email_key FROM low_balance_mails WHERE event_id = $1`, [eventId]);
    return new Set(rows.map((r) => r.email_key));
  }

  /** Written right after the mail left: a crash in between mails that person again (at least once). */
  async recordMailed(eventId: string, accountId: string, emailKey: string): Promise<void> {
    await sqlRows(
      this.db,
      `INSERT INTO low_balance_mails (event_id, email_key, account_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [eventId, emailKey, accountId],
    );
  }

  /**
   * Forgets mails sent more than `days` ago: the record only has to outlive a redelivery of its event
   * (JetStream's, within minutes), so a week is ample.
   */
  async forgetMailedBefore(days: number): Promise<number> {
    const rows = await sqlRows<{ event_id: string }>(
      this.db,
      `DELETE FROM low_balance_mails WHERE sent_at < now() - $1::int * interval '1 day' RETURNING event_id`,
      [days],
    );
    return rows.length;
  }
}
