import { Inject, Injectable } from '@nestjs/common';
import { PG_UNIQUE_VIOLATION, pgErrorCode, sqlRows } from '@gen/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';
import type { MemberRole } from '../memberships/member-role';

/** An invitation not yet accepted, as the members page lists it (never its token). */
export interface PendingInvitation {
  id: string;
  email: string;
  role: MemberRole;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** What the invitation page shows before it is accepted. */
export interface InvitationPreview {
  accountId: string;
  accountName: string;
  email: string;
  emailKey: string;
  role: MemberRole;
  invitedBy: string | null;
  expiresAt: Date;
  /** Whether the address already has a dashboard user (accept by signing in) or not (by choosing a password). */
  hasUser: boolean;
}

/** An invitation used up: who joined which account, with which role. */
export interface AcceptedInvitation {
  accountId: string;
  userId: string;
  email: string;
  role: MemberRole;
}

/**
 * Why an invitation cannot be used: no open one has this token (never issued, used already, revoked
 * or replaced), it has expired, it is for another address, or that address is a member already.
 */
export type AcceptRefusal = 'invalid' | 'expired' | 'other_email' | 'already_member' | 'email_taken';

interface InvitationRow {
  id: string;
  account_id: string;
  email: string;
  email_key: string;
  role: MemberRole;
  expired: boolean;
}

/** Invitations to join an account (`auth.invitations`, migration 1764960000000): only their token's hash is stored. */
@Injectable()
export class InvitationsRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /**
   * Opens an invitation for the address, replacing an earlier one to the same address (its link stops
   * working), unless the address is a member of the account already: one statement, so an address
   * that joins meanwhile is not invited again. False (nothing written) for a member.
   */
  async open(invitation: { id: string; accountId: string; email: string; emailKey: string; role: MemberRole; tokenHash: Buffer; invitedBy: string; ttlSeconds: number }): Promise<boolean> {
    const rows = await sqlRows<{ id: string }>(
      this.db,
      `INSERT INTO invitations (id, account_id, email, email_key, role, token_hash, invited_by, expires_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8)
        WHERE NOT EXISTS (SELECT 1 FROM account_members m JOIN users u ON u.id = m.user_id WHERE m.account_id = $2 AND u.email_key = $4)
       ON CONFLICT (account_id, email_key) DO UPDATE
         SET id = EXCLUDED.id, email = EXCLUDED.email, role = EXCLUDED.role, token_hash = EXCLUDED.token_hash,
             invited_by = EXCLUDED.invited_by, created_at = now(), expires_at = EXCLUDED.expires_at
       RETURNING id`,
      [invitation.id, invitation.accountId, invitation.email, invitation.emailKey, invitation.role, invitation.tokenHash, invitation.invitedBy, invitation.ttlSeconds],
    );
    return rows.length === 1;
  }

  /**
   * Counts an invitation mail against the account's hourly and the address's daily limit, and records
   * it when both allow: which limit refused it, or null (recorded). The account's and the address's
   * advisory locks (taken in a fixed order) make concurrent invitations count exactly.
   */
  async countMail(accountId: string, emailKey: string, limits: { perAccountPerHour: number; perAddressPerDay: number }): Promise<'account' | 'address' | null> {
    return this.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('invitation-mails:account:' || $1))`, [accountId]);
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('invitation-mails:address:' || $1))`, [emailKey]);
      await tx.query(`DELETE FROM invitation_mails WHERE (account_id = $1 OR email_key = $2) AND sent_at < now() - interval '1 day'`, [accountId, emailKey]);
      const [counts] = await sqlRows<{ account: number; address: number }>(
        tx,
        `SELECT (SELECT count(*)::int FROM invitation_mails WHERE account_id = $1 AND sent_at > now() - interval '1 hour') AS account,
                (SELECT count(*)::int FROM invitation_mails WHERE email_key = $2) AS address`,
        [accountId, emailKey],
      );
      if (counts.account >= limits.perAccountPerHour) return 'account';
      if (counts.address >= limits.perAddressPerDay) return 'address';
      await tx.query(`INSERT INTO invitation_mails (account_id, email_key) VALUES ($1, $2)`, [accountId, emailKey]);
      return null;
    });
  }

  async listPending(accountId: string): Promise<PendingInvitation[]> {
    const rows = await sqlRows<{ id: string; email: string; role: MemberRole; invited_by: string | null; created_at: Date; expires_at: Date }>(
      this.db,
      `SELECT i.id, i.email, i.role, u.email AS invited_by, i.created_at, i.expires_at
         FROM invitations i LEFT JOIN users u ON u.id = i.invited_by
        WHERE i.account_id = $1 ORDER BY i.created_at DESC`,
      [accountId],
    );
    return rows.map((r) => ({ id: r.id, email: r.email, role: r.role, invitedBy: r.invited_by, createdAt: r.created_at, expiresAt: r.expires_at }));
  }

  /** Withdraws an invitation (its link stops working); the address it was for, or null when there was none. */
  async revoke(accountId: string, invitationId: string): Promise<{ email: string; role: MemberRole } | null> {
    const rows = await sqlRows<{ email: string; role: MemberRole }>(
      this.db,
      `DELETE FROM invitations WHERE account_id = $1 AND id = $2 RETURNING email, role`,
      [accountId, invitationId],
    );
    return rows[0] ?? null;
  }

  /** Withdraws every invitation of the account that `userId` sent (they are leaving it); what was withdrawn. */
  async revokeSentBy(accountId: string, userId: string): Promise<Array<{ email: string; role: MemberRole }>> {
    return sqlRows<{ email: string; role: MemberRole }>(
      this.db,
      `DELETE FROM invitations WHERE account_id = $1 AND invited_by = $2 RETURNING email, role`,
      [accountId, userId],
    );
  }

  /** The open, unexpired invitation with this token hash, or null. */
  async preview(tokenHash: Buffer): Promise<InvitationPreview | null> {
    const rows = await sqlRows<{
      account_id: string;
      account_name: string;
      email: string;
      email_key: string;
      role: MemberRole;
      invited_by: string | null;
      expires_at: Date;
      has_user: boolean;
    }>(
      this.db,
      `SELECT i.account_id, a.name AS account_name, i.email, i.email_key, i.role, inviter.email AS invited_by, i.expires_at,
              EXISTS (SELECT 1 FROM users u WHERE u.email_key = i.email_key) AS has_user
         FROM invitations i JOIN accounts a ON a.id = i.account_id LEFT JOIN users inviter ON inviter.id = i.invited_by
        WHERE i.token_hash = $1 AND i.expires_at > now()`,
      [tokenHash],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      accountId: r.account_id,
      accountName: r.account_name,
      email: r.email,
      emailKey: r.email_key,
      role: r.role,
      invitedBy: r.invited_by,
      expiresAt: r.expires_at,
      hasUser: r.has_user,
    };
  }

  /**
   * Uses the invitation for the existing user with `userId`, whose address must be the invitation's.
   * Single use: the invitation row is locked, then deleted in the transaction that adds the member,
   * so two concurrent uses cannot both succeed.
   */
  async acceptAsUser(tokenHash: Buffer, user: { id: string; emailKey: string }): Promise<AcceptedInvitation | AcceptRefusal> {
    return this.db.transaction(async (tx) => {
      const invitation = await lockInvitation(tx, tokenHash);
      if (typeof invitation === 'string') return invitation;
      if (invitation.email_key !== user.emailKey) return 'other_email';
      const added = await sqlRows<{ user_id: string }>(
        tx,
        `INSERT INTO account_members (account_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING user_id`,
        [invitation.account_id, user.id, invitation.role],
      );
      await tx.query(`DELETE FROM invitations WHERE id = $1`, [invitation.id]);
      if (added.length === 0) return 'already_member';
      return { accountId: invitation.account_id, userId: user.id, email: invitation.email, role: invitation.role };
    });
  }

  /**
   * Uses the invitation to create the user of its address (whose ownership the link proves) with
   * this password hash, a member of the account, in one transaction. 'email_taken' (nothing written)
   * when the address has a user already: they accept by signing in.
   */
  async acceptAsNewUser(tokenHash: Buffer, user: { id: string; passwordHash: string }): Promise<AcceptedInvitation | AcceptRefusal> {
    try {
      return await this.db.transaction(async (tx) => {
        const invitation = await lockInvitation(tx, tokenHash);
        if (typeof invitation === 'string') return invitation;
        // The invitation's link proves the address: the user's email is verified from the start.
        await tx.query(`INSERT INTO users (id, account_id, email, email_key, password_hash, email_verified_at) VALUES ($1, $2, $3, $4, $5, now())`, [
          user.id,
          invitation.account_id,
          invitation.email,
          invitation.email_key,
          user.passwordHash,
        ]);
        await tx.query(`INSERT INTO account_members (account_id, user_id, role) VALUES ($1, $2, $3)`, [invitation.account_id, user.id, invitation.role]);
        await tx.query(`DELETE FROM invitations WHERE id = $1`, [invitation.id]);
        return { accountId: invitation.account_id, userId: user.id, email: invitation.email, role: invitation.role };
      });
    } catch (error) {
      if (pgErrorCode(error) === PG_UNIQUE_VIOLATION) return 'email_taken';
      throw error;
    }
  }
}

/** The invitation with this token hash, locked for its use; a refusal when there is none or it has expired. */
async function lockInvitation(tx: EntityManager, tokenHash: Buffer): Promise<InvitationRow | AcceptRefusal> {
  const [row] = await sqlRows<InvitationRow>(
    tx,
    `SELECT id, account_id, email, email_key, role, expires_at <= now() AS expired FROM invitations WHERE token_hash = $1 FOR UPDATE`,
    [tokenHash],
  );
  if (!row) return 'invalid';
  return row.expired ? 'expired' : row;
}
