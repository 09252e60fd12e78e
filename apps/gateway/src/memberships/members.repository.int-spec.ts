import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { DomainError } from '@gen/errors';
import { UsersRepository } from '../sessions/users.repository';
import { openAuthDatabase } from '../gateway.database';
import { UserAccountsRepository } from './user-accounts.repository';
import type { MemberRole } from './member-role';
import { removalCheck, roleChangeCheck, transferCheck } from './member-rules';
import { MembersRepository } from './members.repository';

/** Integration (real PostgreSQL): memberships, their rules under concurrency, and the sessions tied to them. */
describe('account members (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;
  let members: MembersRepository;
  let accounts: UserAccountsRepository;
  let users: UsersRepository;

  beforeAll(async () => {
    database = await createTestDatabase('members');
    db = await openAuthDatabase(database.url, 6);
    members = new MembersRepository(db);
    accounts = new UserAccountsRepository(db);
    users = new UsersRepository(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  /** An account with its owner (as sign-up makes them). */
  async function account(label: string) {
    const accountId = randomUUID();
    const owner = randomUUID();
    const email = `${label}-${owner.slice(0, 8)}@example.com`;
    expect(await accounts.insertAccountWithUser({ id: accountId, name: label }, { id: owner, accountId, email, emailKey: email, passwordHash: 'x' })).toBe(true);
    return { accountId, owner, email };
  }

  /** A user (with an account of their own) added to `accountId` with a role. */
  async function member(accountId: string, role: MemberRole, label = role) {
    const own = await account(`${label}-own`);
    await db.query(`INSERT INTO account_members (account_id, user_id, role) VALUES ($1, $2, $3)`, [accountId, own.owner, role]);
    return own;
  }

  async function session(userId: string, accountId: string): Promise<string> {
    const id = randomUUID();
    await users.insertSession({ id, tokenHash: randomBytes(32), userId, accountId, csrfToken: 'c', expiresAt: new Date(Date.now() + 3600_000), ip: null, userAgent: null });
    return id;
  }

  const sessionCount = async (id: string) => Number((await db.query(`SELECT count(*) AS n FROM sessions WHERE id = $1`, [id]))[0].n);
  const codeOf = (result: PromiseSettledResult<unknown>) => (result.status === 'rejected' ? (result.reason as DomainError).code : 'ok');

  it('makes the first user of an account its owner, and lists the addresses of members by role', async () => {
    const team = await account('team');
    const admin = await member(team.accountId, 'admin');
    await member(team.accountId, 'developer');
    await member(team.accountId, 'viewer');
    expect(await members.roleOf(team.accountId, team.owner)).toBe('owner');
    expect(await members.emailsWithRoles(team.accountId, ['owner', 'admin'])).toEqual([admin.email, team.email].sort());
    expect(await members.emailsWithRoles(team.accountId, ['viewer'])).toHaveLength(1);
    expect((await members.list(team.accountId)).map((m) => m.role)).toEqual(['owner', 'admin', 'developer', 'viewer']);
    expect((await members.accountsOf(admin.owner)).map((a) => `${a.name}:${a.role}`)).toEqual(['admin-own:owner', 'team:admin']);
  });

  it('ends a removed member’s sessions on that account in the same statement, and only those', async () => {
    const team = await account('team');
    const dev = await member(team.accountId, 'developer');
    const onTeam = await session(dev.owner, team.accountId);
    const onOwn = await session(dev.owner, dev.accountId);
    await members.switchSession(onTeam, dev.owner, team.accountId);
    const removed = await members.remove(team.accountId, dev.owner, removalCheck(team.owner, dev.owner));
    expect(removed).toEqual({ role: 'developer', endedSessions: 1 });
    expect(await sessionCount(onTeam)).toBe(0);
    expect(await sessionCount(onOwn)).toBe(1);
    // Their next sign-in opens the account they still have.
    expect(await users.accountToOpen(dev.owner)).toBe(dev.accountId);
    expect(await members.roleOf(team.accountId, dev.owner)).toBeNull();
  });

  it('switches a session only to an account its user belongs to', async () => {
    const team = await account('team');
    const other = await account('other');
    const viewer = await member(team.accountId, 'viewer');
    const id = await session(viewer.owner, viewer.accountId);
    expect(await members.switchSession(id, viewer.owner, other.accountId)).toBe(false);
    expect(await members.switchSession(id, viewer.owner, team.accountId)).toBe(true);
    expect(await users.accountToOpen(viewer.owner)).toBe(team.accountId);
    // Even written directly, the database refuses a session on an account the user is not a member of.
    await expect(db.query(`UPDATE sessions SET account_id = $2 WHERE id = $1`, [id, other.accountId])).rejects.toMatchObject({ code: '23503' });
  });

  it('keeps an owner when two owners step down or demote each other at the same time: exactly one change wins', async () => {
    for (let round = 0; round < 5; round++) {
      const team = await account('race');
      const second = await member(team.accountId, 'owner');
      // Each steps down: the second to be written sees it would leave no owner.
      const selves = await Promise.allSettled([
        members.changeRole(team.accountId, second.owner, 'admin', roleChangeCheck(second.owner, second.owner, 'admin')),
        members.changeRole(team.accountId, team.owner, 'admin', roleChangeCheck(team.owner, team.owner, 'admin')),
      ]);
      expect(selves.map(codeOf).sort()).toEqual(['conflict', 'ok']);
      expect(await members.emailsWithRoles(team.accountId, ['owner'])).toHaveLength(1);
      // Each demotes the other: the second to be written is by an admin now, who cannot change an owner.
      const ownerId = (await members.list(team.accountId)).find((m) => m.role === 'owner')!.userId;
      const third = await member(team.accountId, 'owner');
      const crossed = await Promise.allSettled([
        members.changeRole(team.accountId, third.owner, 'admin', roleChangeCheck(ownerId, third.owner, 'admin')),
        members.changeRole(team.accountId, ownerId, 'admin', roleChangeCheck(third.owner, ownerId, 'admin')),
      ]);
      expect(crossed.map(codeOf).sort()).toEqual(['forbidden', 'ok']);
      expect(await members.emailsWithRoles(team.accountId, ['owner'])).toHaveLength(1);
    }
  });

  it('keeps an owner when two owners leave at the same time, and transfers ownership in one step', async () => {
    const team = await account('leave');
    const second = await member(team.accountId, 'owner');
    const results = await Promise.allSettled([
      members.remove(team.accountId, team.owner, removalCheck(team.owner, team.owner)),
      members.remove(team.accountId, second.owner, removalCheck(second.owner, second.owner)),
    ]);
    expect(results.map(codeOf).sort()).toEqual(['conflict', 'ok']);
    const [last] = await members.list(team.accountId);
    const dev = await member(team.accountId, 'developer');
    await members.transferOwnership(team.accountId, last.userId, dev.owner, transferCheck(last.userId, dev.owner));
    expect(await members.roleOf(team.accountId, dev.owner)).toBe('owner');
    expect(await members.roleOf(team.accountId, last.userId)).toBe('admin');
  });

  it('migrates users of one account each into owners of it (the migration on existing rows)', async () => {
    const migrated = await createTestDatabase('members-migration');
    const old = await openAuthDatabase(migrated.url, 2);
    try {
      // Back to before the members migration (and any later one).
      while ((await old.query(`SELECT to_regclass('auth.account_members') AS t`))[0].t !== null) await old.undoLastMigration();
      const accountId = randomUUID();
      const userId = randomUUID();
      await old.query(`INSERT INTO accounts (id, name) VALUES ($1, 'before')`, [accountId]);
      await old.query(`INSERT INTO users (id, account_id, email, email_key, password_hash) VALUES ($1, $2, 'old@example.com', 'old@example.com', 'x')`, [userId, accountId]);
      await old.query(`INSERT INTO sessions (id, token_hash, user_id, account_id, csrf_token, last_seen_at, expires_at) VALUES ($1, $2, $3, $4, 'c', now(), now() + interval '1 hour')`, [
        randomUUID(),
        randomBytes(32),
        userId,
        accountId,
      ]);
      await old.runMigrations();
      expect(await new MembersRepository(old).accountsOf(userId)).toEqual([{ accountId, name: 'before', role: 'owner' }]);
      expect(Number((await old.query(`SELECT count(*) AS n FROM sessions WHERE user_id = $1`, [userId]))[0].n)).toBe(1);
    } finally {
      await old.destroy();
      await migrated.drop();
    }
  });
});
