import { Inject, Injectable } from '@nestjs/common';
import { readRows, retryTransient, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';
import { AccountEntity } from './account.entity';
import { ApiKeyEntity, ApiKeyScope, WebhookScheme } from './api-key.entity';

/** What authentication and submit need of a key: no secret in clear, no name. */
export interface KeyForAuth {
  id: string;
  accountId: string;
  lookupId: string;
  keyHash: Buffer;
  scopes: ApiKeyScope[];
  revoked: boolean;
  webhookUrl: string | null;
  hasSecret: boolean;
  /** Milliseconds since `last_used_at` on the database's clock; null when never used. */
  lastUsedMsAgo: number | null;
}

interface KeyForAuthRow {
  id: string;
  account_id: string;
  lookup_id: string;
  key_hash: Buffer;
  scopes: ApiKeyScope[];
  revoked: boolean;
  webhook_url: string | null;
  has_secret: boolean;
  last_used_ms_ago: number | null;
}

const KEY_FOR_AUTH_COLUMNS = `id, account_id, lookup_id, key_hash, scopes, revoked_at IS NOT NULL AS revoked, webhook_url,
  webhook_secret IS NOT NULL AS has_secret, (extract(epoch FROM now() - last_used_at) * 1000)::float8 AS last_used_ms_ago`;

function keyForAuth(row: KeyForAuthRow | undefined): KeyForAuth | null {
  if (!row) return null;
  return {
    id: row.id,
    accountId: row.account_id,
    lookupId: row.lookup_id,
    keyHash: row.key_hash,
    scopes: row.scopes,
    revoked: row.revoked,
    webhookUrl: row.webhook_url,
    hasSecret: row.has_secret,
    lastUsedMsAgo: row.last_used_ms_ago,
  };
}

/** Every query of the auth schema. Reads of a customer's keys take the account id. */
@Injectable()
export class AuthRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  async insertAccount(account: Pick<AccountEntity, 'id' | 'name'>): Promise<void> {
    await this.db.getRepository(AccountEntity).insert(account);
  }

  findAccount(accountId: string): Promise<AccountEntity | null> {
    return retryTransient(() => this.db.getRepository(AccountEntity).findOneBy({ id: accountId }));
  }

  listAccounts(limit: number): Promise<AccountEntity[]> {
    return this.db.getRepository(AccountEntity).find({ order: { createdAt: 'ASC' }, take: limit });
  }

  async countAccounts(): Promise<number> {
    return this.db.getRepository(AccountEntity).count();
  }

  async insertKey(key: Omit<ApiKeyEntity, 'createdAt' | 'lastUsedAt' | 'revokedAt'>): Promise<ApiKeyEntity> {
    await this.db.getRepository(ApiKeyEntity).insert(key);
    return (await this.db.getRepository(ApiKeyEntity).findOneBy({ id: key.id })) as ApiKeyEntity;
  }

  /** By public lookup id, for authentication (the caller then compares the hash in constant time). */
  async findKeyForAuthByLookupId(lookupId: string): Promise<KeyForAuth | null> {
    const rows = await readRows<KeyForAuthRow>(this.db, `SELECT ${KEY_FOR_AUTH_COLUMNS} FROM api_keys WHERE lookup_id = $1`, [lookupId]);
    return keyForAuth(rows[0]);
  }

  /** By key id, for an authenticated caller's own key (submit's webhook destination). */
  async findKeyForAuthById(keyId: string): Promise<KeyForAuth | null> {
    const rows = await readRows<KeyForAuthRow>(this.db, `SELECT ${KEY_FOR_AUTH_COLUMNS} FROM api_keys WHERE id = $1`, [keyId]);
    return keyForAuth(rows[0]);
  }

  findKey(accountId: string, keyId: string): Promise<ApiKeyEntity | null> {
    return retryTransient(() => this.db.getRepository(ApiKeyEntity).findOneBy({ id: keyId, accountId }));
  }

  /** Internal lookup by key id (webhook secret for the dispatcher); not reachable from customer input. */
  findKeyById(keyId: string): Promise<ApiKeyEntity | null> {
    return retryTransient(() => this.db.getRepository(ApiKeyEntity).findOneBy({ id: keyId }));
  }

  listKeys(accountId: string): Promise<ApiKeyEntity[]> {
    return retryTransient(() => this.db.getRepository(ApiKeyEntity).find({ where: { accountId }, order: { createdAt: 'DESC' } }));
  }

  /** Revokes an active key; returns its lookup id (what gateways cache it by), or null when no active key matched. */
  async revokeKey(accountId: string, keyId: string): Promise<string | null> {
    const rows = await sqlRows<{ lookup_id: string }>(
      this.db,
      `UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING lookup_id`,
      [keyId, accountId],
    );
    return rows[0]?.lookup_id ?? null;
  }

  /**
   * Sets an active key's webhook URL and, if it has no secret yet, `secretIfNone` (encrypted).
   * Returns the key's stored secret afterwards (null if none) and its lookup id, or undefined when no
   * active key matched.
   */
  async setActiveKeyWebhookUrl(
    accountId: string,
    keyId: string,
    url: string | null,
    secretIfNone: string | null,
  ): Promise<{ secret: string | null; lookupId: string } | undefined> {
    const rows = await sqlRows<{ webhook_secret: string | null; lookup_id: string }>(
      this.db,
      `UPDATE api_keys SET webhook_url = $3, webhook_secret = COALESCE(webhook_secret, $4)
        WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING webhook_secret, lookup_id`,
      [keyId, accountId, url, secretIfNone],
    );
    return rows.length === 0 ? undefined : { secret: rows[0].webhook_secret, lookupId: rows[0].lookup_id };
  }

  /**
   * Replaces an active key's secret, ending any rotation's overlap (the old secret fails at once);
   * returns its lookup id, or null when no active key matched.
   */
  async setActiveKeyWebhookSecret(accountId: string, keyId: string, secret: string): Promise<string | null> {
    const rows = await sqlRows<{ lookup_id: string }>(
      this.db,
      `UPDATE api_keys SET webhook_secret = $3, webhook_previous_secret = NULL, webhook_previous_secret_until = NULL
        WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING lookup_id`,
      [keyId, accountId, secret],
    );
    return rows[0]?.lookup_id ?? null;
  }

  /**
   * Rotates an active `standard` key's secret with an overlap: the current secret becomes the
   * previous one, still signing until now + `overlapSeconds` on the database's clock. One statement,
   * so a concurrent renewal or scheme change is either before or after it. Returns the lookup id, or
   * null when no active `standard` key with a secret matched.
   */
  async rotateActiveKeyWebhookSecret(accountId: string, keyId: string, secret: string, overlapSeconds: number): Promise<string | null> {
    const rows = await sqlRows<{ lookup_id: string }>(
      this.db,
      `UPDATE api_keys
          SET webhook_previous_secret = webhook_secret,
              webhook_previous_secret_until = now() + $4::int * interval '1 second',
              webhook_secret = $3
        WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL AND webhook_scheme = 'standard' AND webhook_secret IS NOT NULL
        RETURNING lookup_id`,
      [keyId, accountId, secret, overlapSeconds],
    );
    return rows[0]?.lookup_id ?? null;
  }

  /**
   * Sets an active key's webhook scheme. Leaving `standard` ends a rotation's overlap (the spec's
   * scheme carries one signature). Returns false when no active key matched.
   */
  async setActiveKeyWebhookScheme(accountId: string, keyId: string, scheme: WebhookScheme): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(
      this.db,
      `UPDATE api_keys
          SET webhook_scheme = $3,
              webhook_previous_secret = CASE WHEN $3 = 'standard' THEN webhook_previous_secret END,
              webhook_previous_secret_until = CASE WHEN $3 = 'standard' THEN webhook_previous_secret_until END
        WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL RETURNING id`,
      [keyId, accountId, scheme],
    );
    return rows.length > 0;
  }

  /**
   * Renames an active key and sets its scopes (each when given); returns the values before and the
   * lookup id, or null when no active key matched. One statement reads the old values under the row lock.
   */
  async updateActiveKeyLabel(
    accountId: string,
    keyId: string,
    change: { name?: string; scopes?: string[] },
  ): Promise<{ lookupId: string; previousName: string; previousScopes: string[] } | null> {
    const rows = await sqlRows<{ lookup_id: string; previous_name: string; previous_scopes: string[] }>(
      this.db,
      `UPDATE api_keys k SET name = COALESCE($3, k.name), scopes = COALESCE($4::text[], k.scopes)
         FROM (SELECT id, name, scopes FROM api_keys WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL FOR UPDATE) old
        WHERE k.id = old.id
        RETURNING k.lookup_id, old.name AS previous_name, old.scopes AS previous_scopes`,
      [keyId, accountId, change.name ?? null, change.scopes ?? null],
    );
    const row = rows[0];
    return row ? { lookupId: row.lookup_id, previousName: row.previous_name, previousScopes: row.previous_scopes } : null;
  }

  /**
   * How the dispatcher signs a key's next attempt (internal, by key id): its secret and scheme, and
   * the previous secret only while the overlap lasts, on the database's clock.
   */
  async findKeySigning(keyId: string): Promise<{ id: string; secret: string | null; scheme: WebhookScheme; previousSecret: string | null } | null> {
    const rows = await readRows<{ id: string; webhook_secret: string | null; webhook_scheme: WebhookScheme; previous: string | null }>(
      this.db,
      `SELECT id, webhook_secret, webhook_scheme,
              CASE WHEN webhook_previous_secret_until > now() THEN webhook_previous_secret END AS previous
         FROM api_keys WHERE id = $1`,
      [keyId],
    );
    const row = rows[0];
    return row ? { id: row.id, secret: row.webhook_secret, scheme: row.webhook_scheme, previousSecret: row.previous } : null;
  }

  /**
   * Records a key's use unless it was recorded less than `minAgeMs` ago (by any replica: the row's
   * lock serialises concurrent touches, and the second finds the first's time). Each gateway calls
   * it at most once a minute per key, so this is never a write per request.
   */
  async touchKey(keyId: string, minAgeMs: number): Promise<void> {
    await this.db.query(
      `UPDATE api_keys SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - $2::int * interval '1 millisecond')`,
      [keyId, minAgeMs],
    );
  }
}
