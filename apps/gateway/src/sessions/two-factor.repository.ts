import { Inject, Injectable } from '@nestjs/common';
import { Queryable, sqlRows } from '@gen/persistence';
import { DataSource } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';

export interface TwoFactorUser {
  id: string;
  email: string;
  /** Encrypted (WebhookSecretCipher); null: no enrolment begun. */
  totpSecret: string | null;
  enabled: boolean;
}

/** TOTP secrets, recovery codes and sign-in challenges (schema auth, migration 1764970000000). */
@Injectable()
export class TwoFactorRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  async findUser(userId: string): Promise<TwoFactorUser | null> {
    const [row] = await sqlRows<{ id: string; email: string; totp_secret: string | null; enabled: boolean }>(
      this.db,
      `SELECT id, email, totp_secret, totp_enabled_at IS NOT NULL AS enabled FROM users WHERE id = $1`,
      [userId],
    );
    return row ? { id: row.id, email: row.email, totpSecret: row.totp_secret, enabled: row.enabled } : null;
  }

  /** Stores an unconfirmed secret; false when two-factor is on already (a new secret would replace the confirmed one). */
  async beginEnrolment(userId: string, encryptedSecret: string): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(
      this.db,
      `UPDATE users SET totp_secret = $2, totp_last_step = NULL WHERE id = $1 AND totp_enabled_at IS NULL RETURNING id`,
      [userId, encryptedSecret],
    );
    return rows.length === 1;
  }

  /**
   * Confirms the enrolment begun with `encryptedSecret` and stores the recovery codes' hashes, in
   * one transaction; false when that enrolment is no longer the pending one (confirmed meanwhile,
   * or replaced by a newer one).
   */
  async enable(userId: string, encryptedSecret: string, step: number, codeHashes: Buffer[]): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const rows = await sqlRows<{ id: string }>(
        tx,
        `UPDATE users SET totp_enabled_at = now(), totp_last_step = $3
          WHERE id = $1 AND totp_secret = $2 AND totp_enabled_at IS NULL RETURNING id`,
        [userId, encryptedSecret, step],
      );
      if (rows.length === 0) return false;
      await this.replaceCodes(tx, userId, codeHashes);
      return true;
    });
  }

  /** Turns two-factor off: secret, last step and recovery codes go. */
  async disable(userId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(`UPDATE users SET totp_secret = NULL, totp_enabled_at = NULL, totp_last_step = NULL WHERE id = $1`, [userId]);
      await tx.query(`DELETE FROM two_factor_recovery_codes WHERE user_id = $1`, [userId]);
    });
  }

  /**
   * Accepts a code's time step if it is later than the last one accepted: one statement, so of two
   * concurrent uses of one code exactly one succeeds (replay refused).
   */
  async acceptStep(userId: string, step: number): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(
      this.db,
      `UPDATE users SET totp_last_step = $2 WHERE id = $1 AND totp_enabled_at IS NOT NULL AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id`,
      [userId, step],
    );
    return rows.length === 1;
  }

  /** Uses a recovery code once: the row is marked used by the statement that finds it unused. */
  async useRecoveryCode(userId: string, codeHash: Buffer): Promise<boolean> {
    const rows = await sqlRows<{ user_id: string }>(
      this.db,
      `UPDATE two_factor_recovery_codes SET used_at = now() WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING user_id`,
      [userId, codeHash],
    );
    return rows.length === 1;
  }

  async unusedRecoveryCodes(userId: string): Promise<number> {
    const [row] = await sqlRows<{ n: number }>(
      this.db,
      `SELECT count(*)::int AS n FROM two_factor_recovery_codes WHERE user_id = $1 AND used_at IS NULL`,
      [userId],
    );
    return row.n;
  }

  async renewRecoveryCodes(userId: string, codeHashes: Buffer[]): Promise<void> {
    await this.db.transaction((tx) => this.replaceCodes(tx, userId, codeHashes));
  }

  async createChallenge(tokenHash: Buffer, userId: string, ttlSeconds: number): Promise<void> {
    await this.db.query(
      `INSERT INTO two_factor_challenges (token_hash, user_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))`,
      [tokenHash, userId, ttlSeconds],
    );
    // Expired challenges are useless: each new one sweeps them.
    await this.db.query(`DELETE FROM two_factor_challenges WHERE expires_at <= now()`);
  }

  async findChallenge(tokenHash: Buffer): Promise<string | null> {
    const [row] = await sqlRows<{ user_id: string }>(
      this.db,
      `SELECT user_id FROM two_factor_challenges WHERE token_hash = $1 AND expires_at > now()`,
      [tokenHash],
    );
    return row?.user_id ?? null;
  }

  /** Counts a wrong code; the challenge ends (deleted) at `maxFailures`. Returns whether it is still open. */
  async failChallenge(tokenHash: Buffer, maxFailures: number): Promise<boolean> {
    const [row] = await sqlRows<{ failures: number }>(
      this.db,
      `UPDATE two_factor_challenges SET failures = failures + 1 WHERE token_hash = $1 RETURNING failures`,
      [tokenHash],
    );
    if (!row || row.failures < maxFailures) return row !== undefined;
    await this.db.query(`DELETE FROM two_factor_challenges WHERE token_hash = $1`, [tokenHash]);
    return false;
  }

  /** Ends a challenge (it was answered); false when another request ended it first. */
  async consumeChallenge(tokenHash: Buffer): Promise<boolean> {
    const rows = await sqlRows<{ user_id: string }>(this.db, `DELETE FROM two_factor_challenges WHERE token_hash = $1 RETURNING user_id`, [tokenHash]);
    return rows.length === 1;
  }

  /** The account setting "every member signs in with two factors". */
  async setAccountRequirement(accountId: string, required: boolean): Promise<void> {
    await this.db.query(`UPDATE accounts SET require_two_factor = $2 WHERE id = $1`, [accountId, required]);
  }

  private async replaceCodes(tx: Queryable, userId: string, codeHashes: Buffer[]): Promise<void> {
    await tx.query(`DELETE FROM two_factor_recovery_codes WHERE user_id = $1`, [userId]);
    for (const hash of codeHashes) await tx.query(`INSERT INTO two_factor_recovery_codes (user_id, code_hash) VALUES ($1, $2)`, [userId, hash]);
  }
}
