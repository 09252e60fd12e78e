import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { pgErrorCode } from '@gen/persistence';
import { createTestDatabase, TestDatabase } from '@gen/testing';
import { openAuthDatabase } from '../gateway.database';
import type { AuditActor } from './audit-actions';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';

/** Every .ts file under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Integration (real PostgreSQL): the audit log is append-only, filtered per account, and purged only past its retention. */
describe('audit log (PostgreSQL)', () => {
  let database: TestDatabase;
  let db: DataSource;
  let audit: AuditService;
  const alice: AuditActor = { kind: 'user', userId: randomUUID(), email: 'alice@example.com', ip: '198.51.100.7' };
  const operator: AuditActor = { kind: 'operator', name: 'ops-oncall' };

  beforeAll(async () => {
    database = await createTestDatabase('audit');
    db = await openAuthDatabase(database.url, 4);
    audit = new AuditService(new AuditRepository(db));
  });
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const refusal = async (sql: string, params: unknown[] = []) => {
    try {
      await db.query(sql, params);
      return 'accepted';
    } catch (error) {
      return pgErrorCode(error);
    }
  };

  it('records who, when, from where, what and on what; lists newest first, in pages, per account', async () => {
    const account = randomUUID();
    const other = randomUUID();
    await audit.record({ accountId: account, actor: alice, action: 'key.created', target: 'k1', details: { name: 'ci' } });
    await audit.record({ accountId: account, actor: operator, action: 'account.credits_changed', target: account, details: { amount: 500 } });
    await audit.record({ accountId: account, actor: alice, action: 'key.revoked', target: 'k1' });
    await audit.record({ accountId: other, actor: alice, action: 'key.created', target: 'k2' });

    const first = await audit.page(account, { limit: 2 });
    expect(first.data.map((e) => e.action)).toEqual(['key.revoked', 'account.credits_changed']);
    expect(first.data[1]).toEqual({
      id: expect.any(String),
      at: expect.any(String),
      actor_kind: 'operator',
      actor: 'ops-oncall',
      ip: null,
      action: 'account.credits_changed',
      target: account,
      details: { amount: 500 },
    });
    const second = await audit.page(account, { limit: 2, cursor: first.next_cursor as string });
    expect(second).toEqual({ data: [expect.objectContaining({ action: 'key.created', actor: 'alice@example.com', ip: '198.51.100.7' })], next_cursor: null });
    expect((await audit.page(account, { actor: 'ALICE@example.com' })).data.map((e) => e.action)).toEqual(['key.revoked', 'key.created']);
    expect((await audit.page(account, { action: 'key.created' })).data).toHaveLength(1);
    expect((await audit.page(other, {})).data.map((e) => e.target)).toEqual(['k2']);
    expect(await audit.actors(account)).toEqual(['alice@example.com', 'ops-oncall']);
    await expect(audit.page(account, { action: 'key.exploded' })).rejects.toMatchObject({ code: 'validation_error' });
  });

  it('refuses every UPDATE, DELETE and TRUNCATE, whatever the row (the database, not only the code)', async () => {
    const account = randomUUID();
    await audit.record({ accountId: account, actor: alice, action: 'user.signed_in', target: alice.email });
    expect(await refusal(`UPDATE audit_log SET actor = 'mallory@example.com' WHERE account_id = $1`, [account])).toBe('42501');
    expect(await refusal(`DELETE FROM audit_log WHERE account_id = $1`, [account])).toBe('42501');
    expect(await refusal(`TRUNCATE audit_log`)).toBe('42501');
    // Not even an old entry is deleted outside the purge.
    await db.query(`INSERT INTO audit_log (account_id, at, actor_kind, actor, action) VALUES ($1, now() - interval '900 days', 'operator', 'x', 'key.created')`, [account]);
    expect(await refusal(`DELETE FROM audit_log WHERE account_id = $1 AND at < now() - interval '800 days'`, [account])).toBe('42501');
    expect((await audit.page(account, {})).data.map((e) => e.actor)).toEqual(['x', 'alice@example.com']);
  });

  it('purges only the entries past the retention, and refuses a retention below one day', async () => {
    const account = randomUUID();
    for (const days of [400, 366, 364, 1]) {
      await db.query(
        `INSERT INTO audit_log (account_id, at, actor_kind, actor, action, target) VALUES ($1, now() - make_interval(days => $2), 'operator', 'x', 'key.created', $3)`,
        [account, days, `${days} days old`],
      );
    }
    expect(await audit.purge(365)).toBeGreaterThanOrEqual(2);
    expect((await audit.page(account, {})).data.map((e) => e.target)).toEqual(['1 days old', '364 days old']);
    expect(await refusal(`SELECT purge_audit_log(0)`)).toBe('22023');
  });

  it('has no code path that changes or deletes an entry: only the migration and the purge function touch it', () => {
    const root = join(__dirname, '..', '..', '..');
    const writes = sources(root)
      .filter((path) => !path.includes(`${join('migrations', '')}`) && !path.endsWith('.int-spec.ts'))
      .filter((path) => /\b(UPDATE|DELETE\s+FROM|TRUNCATE)\s+("?auth"?\.)?"?audit_log\b/i.test(readFileSync(path, 'utf8')));
    expect(writes).toEqual([]);
    expect(Object.getOwnPropertyNames(AuditRepository.prototype).sort()).toEqual(['actors', 'append', 'constructor', 'page', 'purgeOlderThan']);
  });
});
