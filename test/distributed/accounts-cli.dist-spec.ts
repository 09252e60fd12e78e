import { createTestDatabase, TestDatabase } from '@gen/testing';
import { runCli, runCliWith } from '../support/cli';

/** The operator CLI's `keys set-cap` (built CLI, against a migrated database): sets, shows and refuses caps. */
describe('operator CLI: keys set-cap', () => {
  let db: TestDatabase;
  let accountId: string;
  let keyId: string;

  beforeAll(async () => {
    db = await createTestDatabase('cli-caps');
    expect(runCli(db.url, 'migrate').code).toBe(0);
    const created = runCli(db.url, 'accounts', 'create', '--name', 'Capped', '--credits', '100', '--json');
    expect(created.code).toBe(0);
    accountId = created.json.account_id;
    keyId = created.json.api_key.id;
  });
  afterAll(() => db?.drop());

  it('sets both caps, keeps one when the other is changed, removes one with none', () => {
    const set = runCli(db.url, 'keys', 'set-cap', '--account', accountId, '--key', keyId, '--per-day', '50', '--per-month', '900', '--json');
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({ key_id: keyId, per_day: 50, per_month: 900, spent_today: 0, spent_this_month: 0 });
    const human = runCli(db.url, 'keys', 'set-cap', '--account', accountId, '--key', keyId, '--per-day', 'none');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('no cap per day (spent 0); 900 credits per month (spent 0); UTC');
  });

  it.each([
    [['--per-day', '0'], '--per-day must be a whole number of credits from 1 to 2147483647, or none to remove the cap'],
    [['--per-day', '-4'], '--per-day must be a whole number of credits from 1 to 2147483647, or none to remove the cap'],
    [['--per-month', '2.5'], '--per-month must be a whole number of credits from 1 to 2147483647, or none to remove the cap'],
    [[], 'Nothing to change: give --per-day, --per-month or both (none removes a cap)'],
  ])('refuses %j (exit 2, a usage error) and changes nothing', (args, message) => {
    const res = runCli(db.url, 'keys', 'set-cap', '--account', accountId, '--key', keyId, ...args);
    expect({ code: res.code, stderr: res.stderr }).toEqual({ code: 2, stderr: expect.stringContaining(message) });
    const shown = runCli(db.url, 'keys', 'set-cap', '--account', accountId, '--key', keyId, '--per-month', '900', '--json');
    expect(shown.json).toMatchObject({ per_day: null, per_month: 900 });
  });

  it("refuses another account's key as not found", () => {
    const other = runCli(db.url, 'accounts', 'create', '--name', 'Other', '--json');
    const res = runCli(db.url, 'keys', 'set-cap', '--account', other.json.account_id, '--key', keyId, '--per-day', '5');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/not found|No such key|no key/i);
  });
});

/** The operator CLI's changes go to the account's audit log as the operator's (the OS user), and `audit list` reads it. */
describe('operator CLI: audit list', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('cli-audit');
    expect(runCli(db.url, 'migrate').code).toBe(0);
  });
  afterAll(() => db?.drop());

  it('lists what operators did to the account, newest first, filtered by action and actor', () => {
    const env = { DATABASE_URL: db.url, USER: 'oncall-ana' };
    const created = runCliWith(env, 'accounts', 'create', '--name', 'Audited', '--json');
    const accountId: string = created.json.account_id;
    const keyId: string = created.json.api_key.id;
    expect(runCliWith(env, 'credits', 'grant', '--account', accountId, '--amount', '250', '--note', 'invoice 7').code).toBe(0);
    expect(runCliWith({ DATABASE_URL: db.url, USER: 'oncall-ben' }, 'keys', 'set-cap', '--account', accountId, '--key', keyId, '--per-day', '40').code).toBe(0);
    expect(runCliWith(env, 'keys', 'revoke', '--account', accountId, '--key', keyId).code).toBe(0);

    const all = runCliWith(env, 'audit', 'list', '--account', accountId, '--json');
    expect(all.code).toBe(0);
    expect(all.json.map((e: { action: string; actor: string }) => `${e.action} by ${e.actor}`)).toEqual([
      'key.revoked by oncall-ana',
      'key.caps_set by oncall-ben',
      'account.credits_changed by oncall-ana',
      'key.created by oncall-ana',
      'account.created by oncall-ana',
    ]);
    expect(all.json[2]).toMatchObject({ actor_kind: 'operator', ip: null, target: accountId, details: { amount: 250, note: 'invoice 7', available: 250 } });
    const filtered = runCliWith(env, 'audit', 'list', '--account', accountId, '--actor', 'oncall-ben', '--json');
    expect(filtered.json.map((e: { action: string }) => e.action)).toEqual(['key.caps_set']);
    const human = runCliWith(env, 'audit', 'list', '--account', accountId, '--action', 'key.revoked');
    expect(human.stdout).toMatch(/key\.revoked\s+operator oncall-ana {2}on [0-9a-f-]{36}/);
    const bad = runCliWith(env, 'audit', 'list', '--account', accountId, '--action', 'key.exploded');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('action: must be one of');
  });
});
