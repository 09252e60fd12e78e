import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Invitation mails sent (docs/guide/dashboard.md, "Invitations"): one row per mail, so the limits
 * per account per hour and per address per day count re-sends too (an invitation to the same address
 * replaces its row in `invitations`). Rows older than a day are deleted as new ones are written. Raw
 * SQL only (no entity). A new table: the previous release's gateway never touches it. The indexes are
 * made with the table (empty), so no lock is held on data.
 */
export class AuthInvitationMails1766036000002 implements MigrationInterface {
  name = 'AuthInvitationMails1766036000002';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "auth"."invitation_mails" (
        "account_id" uuid NOT NULL,
        "email_key" text NOT NULL,
        "sent_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX "invitation_mails_by_account" ON "auth"."invitation_mails" ("account_id", "sent_at")`);
    await q.query(`CREATE INDEX "invitation_mails_by_address" ON "auth"."invitation_mails" ("email_key", "sent_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "auth"."invitation_mails"`);
  }
}
