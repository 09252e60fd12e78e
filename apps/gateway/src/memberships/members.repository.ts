import { Inject, Injectable } from '@nestjs/common';
import { sqlRows } from '@gen/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import { AUTH_DB } from '../settings/gateway.tokens';
import type { MemberRole } from './member-role';

/** A member as the members page lists them. */
export interface Member {
  userId: string;
  email: string;
  role: MemberRole;
  joinedAt: Date;
  lastSignInAt: Date | null;
}

/** An account a user belongs to, for the account picker. */
export interface Membership {
  accountId: string;
  name: string;
  role: MemberRole;
}

/** The account's members, locked for a change, as a change's checks see them. */
export interface MembersSnapshot {
  roles: Map<string, MemberRole>;
  owners: number;
}

/**
 * Decides a change from the locked members (throws a domain error to refuse it, changing nothing).
 * The service's rules (who may manage whom, the last owner) run here, inside the repository's
 * transaction, so they judge the rows as they are when the change is written.
 */
export type MembersCheck = (members: MembersSnapshot) => void;

/** The account's members and their roles (`auth.account_members`, migration 1764960000000). */
@Injectable()
export class MembersRepository {
  constructor(@Inject(AUTH_DB) private readonly db: DataSource) {}

  /** The email addresses of the account's members with one of these roles (e.g. whom to mail a low-balance alert). */
  async emailsWithRoles(accountId: string, roles: readonly MemberRole[]): Promise<string[]> {
    const rows = await sqlRows<{ email: string }>(
      this.db,
      `SELECT u.email FROM account_members m JOIN users u ON u.id = m.user_id
        WHERE m.account_id = $1 AND m.role = ANY($2::text[]) ORDER BY u.email_key`,
      [accountId, [...roles]],
    );
    return rows.map((r) => r.email);
  }

  /** The user's role in the account, or null when they are not a member. */
  async roleOf(accountId: string, userId: string): Promise<MemberRole | null> {
    const rows = await sqlRows<{ role: MemberRole }>(this.db, `SELECT role FROM account_members WHERE account_id = $1 AND user_id = $2`, [accountId, userId]);
    return rows[0]?.role ?? null;
  }

  /** A member's address, or null when the user is not a member of the account. */
  async memberEmail(accountId: string, userId: string): Promise<string | null> {
    const rows = await sqlRows<{ email: string }>(
      this.db,
      `SELECT u.email FROM account_members m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1 AND m.user_id = $2`,
      [accountId, userId],
    );
    return rows[0]?.email ?? null;
  }

  async list(accountId: string): Promise<Member[]> {
    const rows = await sqlRows<{ user_id: string; email: string; role: MemberRole; created_at: Date; last_sign_in_at: Date | null }>(
      this.db,
      `SELECT m.user_id, u.email, m.role, m.created_at, u.last_sign_in_at
         FROM account_members m JOIN users u ON u.id = m.user_id
        WHERE m.account_id = $1
        ORDER BY array_position(ARRAY['owner', 'admin', 'developer', 'viewer'], m.role), u.email_key`,
      [accountId],
    );
    return rows.map((r) => ({ userId: r.user_id, email: r.email, role: r.role, joinedAt: r.created_at, lastSignInAt: r.last_sign_in_at }));
  }

  /** Every account the user belongs to, by name. */
  async accountsOf(userId: string): Promise<Membership[]> {
    const rows = await sqlRows<{ account_id: string; name: string; role: MemberRole }>(
      this.db,
      `SELECT m.account_id, a.name, m.role FROM account_members m JOIN accounts a ON a.id = m.account_id
        WHERE m.user_id = $1 ORDER BY lower(a.name), a.id`,
      [userId],
    );
    return rows.map((r) => ({ accountId: r.account_id, name: r.name, role: r.role }));
  }

  /**
   * Changes a member's role if `check` allows it. The account's member rows are locked first
   * (FOR UPDATE, in one order), so two concurrent changes (two owners demoting each other) run one
   * after the other and the second sees the first: the last owner cannot be demoted by a race.
   */
  async changeRole(accountId: string, userId: string, role: MemberRole, check: MembersCheck): Promise<MemberRole> {
    return this.db.transaction(async (tx) => {
      const members = await lockMembers(tx, accountId);
      check(members);
      const before = members.roles.get(userId) as MemberRole;
      await tx.query(`UPDATE account_members SET role = $3 WHERE account_id = $1 AND user_id = $2`, [accountId, userId, role]);
      return before;
    });
  }

  /**
   * Removes a member if `check` allows it (the account's members locked, as in changeRole). Their
   * sessions on the account end in the same statement (the sessions' foreign key to the membership
   * cascades); sign-in then opens another of their accounts. Returns the role they had and how many
   * sessions ended.
   */
  async remove(accountId: string, userId: string, check: MembersCheck): Promise<{ role: MemberRole; endedSessions: number }> {
    return this.db.transaction(async (tx) => {
      const members = await lockMembers(tx, accountId);
      check(members);
      const [{ count }] = await sqlRows<{ count: number }>(
        tx,
        `SELECT count(*)::int AS count FROM sessions WHERE account_id = $1 AND user_id = $2`,
        [accountId, userId],
      );
      await tx.query(`DELETE FROM account_members WHERE account_id = $1 AND user_id = $2`, [accountId, userId]);
      await tx.query(
        `UPDATE users SET account_id = (SELECT m.account_id FROM account_members m WHERE m.user_id = $2 ORDER BY m.created_at LIMIT 1)
          WHERE id = $2 AND account_id = $1`,
        [accountId, userId],
      );
      return { role: members.roles.get(userId) as MemberRole, endedSessions: count };
    });
  }

  /** Makes `toUserId` an owner and `fromUserId` an admin, in one transaction, if `check` allows it. */
  async transferOwnership(accountId: string, fromUserId: string, toUserId: string, check: MembersCheck): Promise<void> {
    await this.db.transaction(async (tx) => {
      check(await lockMembers(tx, accountId));
      await tx.query(`UPDATE account_members SET role = 'owner' WHERE account_id = $1 AND user_id = $2`, [accountId, toUserId]);
      await tx.query(`UPDATE account_members SET role = 'admin' WHERE account_id = $1 AND user_id = $2`, [accountId, fromUserId]);
    });
  }

  /**
   * Moves a session to another of its user's accounts (the foreign key to the membership refuses an
   * account they do not belong to), and makes it the account their next sign-in opens. False when
   * they are not a member of it.
   */
  async switchSession(sessionId: string, userId: string, accountId: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const moved = await sqlRows<{ id: string }>(
        tx,
        `UPDATE sessions SET account_id = $3 WHERE id = $1 AND user_id = $2
            AND EXISTS (SELECT 1 FROM account_members m WHERE m.account_id = $3 AND m.user_id = $2)
          RETURNING id`,
        [sessionId, userId, accountId],
      );
      if (moved.length === 0) return false;
      await tx.query(`UPDATE users SET account_id = $2 WHERE id = $1`, [userId, accountId]);
      return true;
    });
  }
}

async function lockMembers(tx: EntityManager, accountId: string): Promise<MembersSnapshot> {
  const rows = await sqlRows<{ user_id: string; role: MemberRole }>(
    tx,
    `SELECT user_id, role FROM account_members WHERE account_id = $1 ORDER BY user_id FOR UPDATE`,
    [accountId],
  );
  return { roles: new Map(rows.map((r) => [r.user_id, r.role])), owners: rows.filter((r) => r.role === 'owner').length };
}
