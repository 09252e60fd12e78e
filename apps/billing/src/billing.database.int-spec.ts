import { Client, Notification } from 'pg';
import { createTestDatabase, functionDrift, schemaDrift } from '@gen/testing';
import { BILLING_FUNCTIONS } from './config/billing.functions';
import { openBillingDatabase } from './billing.database';

/** Integration (real PostgreSQL): entities and migrations agree; generating a migration from the entities would produce nothing. */
describe('billing schema', () => {
  it('has no difference between the entities and the migrated schema', async () => {
    expect(await schemaDrift((url) => openBillingDatabase(url, 2))).toEqual([]);
  });

  it('has each PL/pgSQL function as its .sql file defines it', async () => {
    expect(await functionDrift((url) => openBillingDatabase(url, 2), 'billing', Object.values(BILLING_FUNCTIONS))).toEqual([]);
  });

  it('the batch functions, key caps and low-balance migrations revert and apply again', async () => {
    const database = await createTestDatabase('billingdown');
    const db = await openBillingDatabase(database.url, 2);
    const functions = async () =>
      (
        await db.query(
          `SELECT proname || '(' || pg_get_function_identity_arguments(oid) || ')' AS f FROM pg_proc WHERE pronamespace = 'billing'::regnamespace ORDER BY proname`,
        )
      ).map((r: { f: string }) => r.f.replace(/p_(\w+) /g, ''));
    const tables = async () =>
      (await db.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'billing' AND tablename LIKE 'key_%' ORDER BY 1`)).map(
        (r: { tablename: string }) => r.tablename,
      );
    const withKeys = ['reserve_batch(uuid[], uuid[], integer[], bigint[], text[], uuid[])', 'settle_batch(uuid[], text[], text[])'];
    const outbox = async () => (await db.query(`SELECT to_regclass('billing.outbox') IS NOT NULL AS present`))[0].present as boolean;
    try {
      expect(await functions()).toEqual(['announce_account_change()', 'low_balance_crossing()', ...withKeys]);
      expect(await outbox()).toBe(true);
      // 1766500000000 (the batch functions writing in bulk): undone, the per-item bodies are back; applied again at the end.
      const settleBody = async () => (await db.query(`SELECT prosrc FROM pg_proc WHERE oid = 'billing.settle_batch'::regproc`))[0].prosrc as string;
      expect(await settleBody()).toContain('WITH items AS');
      await db.undoLastMigration({ transaction: 'each' });
      expect(await functions()).toEqual(['announce_account_change()', 'low_balance_crossing()', ...withKeys]);
      expect(await settleBody()).toContain('FOR r IN');
      // 1766400000000 (the index of published outbox events, which the relay prunes): undone, then on again at the end.
      const publishedIndex = async () => (await db.query(`SELECT to_regclass('billing.outbox_published') IS NOT NULL AS present`))[0].present as boolean;
      expect(await publishedIndex()).toBe(true);
      await db.undoLastMigration({ transaction: 'each' });
      expect(await publishedIndex()).toBe(false);
      // 1766000000002 (top-ups), 1766000000001 (subscriptions) and 1766000000000 (payments): new tables only, undone, applied again, undone for the steps below.
      await db.undoLastMigration({ transaction: 'each' });
      expect((await db.query(`SELECT to_regclass('billing.top_up_attempts') IS NULL AS gone`))[0].gone).toBe(true);
      await db.undoLastMigration({ transaction: 'each' });
      expect((await db.query(`SELECT to_regclass('billing.subscriptions') IS NULL AS gone`))[0].gone).toBe(true);
      const paymentTables = async () =>
        (await db.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'billing' AND tablename IN ('credit_packs', 'stripe_customers', 'purchases', 'stripe_events', 'account_restrictions') ORDER BY 1`)).map(
          (r: { tablename: string }) => r.tablename,
        );
      expect(await paymentTables()).toEqual(['account_restrictions', 'credit_packs', 'purchases', 'stripe_customers', 'stripe_events']);
      await db.undoLastMigration({ transaction: 'each' });
      expect(await paymentTables()).toEqual([]);
      await db.runMigrations({ transaction: 'each' });
      expect(await paymentTables()).toHaveLength(5);
      expect((await db.query(`SELECT to_regclass('billing.plan_prices') IS NOT NULL AND to_regclass('billing.saved_cards') IS NOT NULL AS present`))[0].present).toBe(true);
      expect(await publishedIndex()).toBe(true);
      await db.undoLastMigration({ transaction: 'each' });
      await db.undoLastMigration({ transaction: 'each' });
      await db.undoLastMigration({ transaction: 'each' });
      await db.undoLastMigration({ transaction: 'each' });
      await db.undoLastMigration({ transaction: 'each' });
      // 1765200000000 (the functions from their files) undone: the same functions, as the migrations before wrote them.
      await db.undoLastMigration({ transaction: 'each' });
      expect(await functions()).toEqual(['announce_account_change()', 'low_balance_crossing()', ...withKeys]);
      // 1764980000000 (low balance: the trigger, its function, the outbox and the columns) undone, then
      // 1764930000000 (the plan-change notice), then 1764870000000 (key caps) back to the functions of
      // 1764720000000, then those undone too.
      await db.undoLastMigration({ transaction: 'each' });
      expect(await functions()).toEqual(['announce_account_change()', ...withKeys]);
      expect(await outbox()).toBe(false);
      await db.undoLastMigration({ transaction: 'each' });
      expect(await functions()).toEqual(withKeys);
      expect(await outbox()).toBe(false);
      expect(await tables()).toEqual(['key_caps', 'key_spend']);
      await db.undoLastMigration({ transaction: 'each' });
      expect(await functions()).toEqual(['reserve_batch(uuid[], uuid[], integer[], bigint[], text[])', 'settle_batch(uuid[], text[], text[])']);
      expect(await tables()).toEqual([]);
      await db.undoLastMigration({ transaction: 'each' });
      expect(await functions()).toEqual([]);
      await db.runMigrations({ transaction: 'each' });
      expect(await functions()).toEqual(['announce_account_change()', 'low_balance_crossing()', ...withKeys]);
      expect(await outbox()).toBe(true);
      expect(await tables()).toEqual(['key_caps', 'key_spend']);
      expect(await settleBody()).toContain('WITH items AS');
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
  it('announces a change of plan or limits at its commit (gen_account_changed), not a balance change', async () => {
    const database = await createTestDatabase('billingnotify');
    const db = await openBillingDatabase(database.url, 2);
    const listener = new Client({ connectionString: database.url });
    const notices: Notification[] = [];
    try {
      await listener.connect();
      listener.on('notification', (n) => notices.push(n));
      await listener.query('LISTEN gen_account_changed');
      const id = '00000000-0000-4000-8000-000000000001';
      await db.query(`INSERT INTO billing.accounts (account_id, plan, requests_per_minute, parallel_tasks) VALUES ($1, 'free', 10, 1)`, [id]);
      await db.query('UPDATE billing.accounts SET available = available + 5, held = held + 1 WHERE account_id = $1', [id]);
      await db.query(`UPDATE billing.accounts SET plan = 'free' WHERE account_id = $1`, [id]); // the same plan: no change
      await db.query(`UPDATE billing.accounts SET plan = 'pro', requests_per_minute = 60 WHERE account_id = $1`, [id]);
      await db.query('UPDATE billing.accounts SET parallel_tasks = 3 WHERE account_id = $1', [id]);
      await listener.query('SELECT 1'); // notices sent before this answer have arrived
      expect(notices.map((n) => ({ channel: n.channel, payload: JSON.parse(n.payload ?? 'null') }))).toEqual([
        { channel: 'gen_account_changed', payload: { accountId: id } },
        { channel: 'gen_account_changed', payload: { accountId: id } },
      ]);
    } finally {
      await listener.end();
      await db.destroy();
      await database.drop();
    }
  });
});
