import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

const INVALID = 'token: This invitation is not valid: it was used already, withdrawn, or replaced by a newer one. Ask for a new invitation.';
const EXPIRED = 'token: This invitation has expired. Ask the person who invited you for a new one.';

/**
 * Members, roles and invitations (standalone, sign-up closed, mails over SMTP to a real SMTP server
 * in this process): invitation links are followed from the mails as a person would.
 */
describe('standalone: members, roles and invitations', () => {
  let h: StandaloneHarness;
  let smtp: SmtpSink;
  let address = 0;
  const client = () => new DashboardClient(h.url, { 'x-forwarded-for': `198.18.7.${++address}` });

  beforeAll(async () => {
    smtp = await startSmtpSink();
    h = await startStandaloneHarness({ SMTP_URL: smtp.url, MAIL_FROM: 'Gen <no-reply@gen.example>', SIGNUP_MODE: 'invite' });
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  /** An account made by an operator (sign-up is closed), its owner signed in. */
  async function team(label = 'team') {
    const created = await h.running.provisioning.createAccountWithSignIn(`${label} ${++address}`, testEmail(label), 'pro', 1000);
    if (!created) throw new Error('account not created');
    const owner = client();
    expect((await owner.signIn(created.email, created.password)).status).toBe(200);
    return { owner, accountId: created.accountId, name: created.name, email: created.email, password: created.password };
  }

  /** Invites an address and returns the token of the link in the mail it receives. */
  async function invite(by: DashboardClient, email: string, role: string): Promise<string> {
    const before = (await smtp.mailsTo(email, 0, 0)).length;
    const res = await by.request('POST', '/members/invitations', { body: { email, role } });
    expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: { mailed: true } });
    const mails = await smtp.mailsTo(email, before + 1);
    const mail = mails[mails.length - 1];
    expect(mail.links).toHaveLength(1);
    const link = new URL(mail.links[0]);
    expect(`${link.origin}${link.pathname}`).toBe(`${h.url}/dashboard/invitation`);
    return link.searchParams.get('token') as string;
  }

  /** A new person accepts by choosing a password; returns their signed-in client. */
  async function join(by: DashboardClient, role: string, label = role) {
    const email = testEmail(label);
    const token = await invite(by, email, role);
    const c = client();
    await c.session();
    const res = await c.request('POST', '/invitations/accept-sign-up', { body: { token, password: TEST_PASSWORD } });
    expect(res.status).toBe(201);
    c.csrf = res.body.csrf_token;
    return { c, email, userId: res.body.user.id as string };
  }

  const anonymous = async () => {
    const c = client();
    await c.session();
    return c;
  };

  it('invites by mail; the link, followed, shows the invitation and makes the new user a member with the role, though sign-up is closed', async () => {
    const t = await team();
    const email = testEmail('newcomer');
    const token = await invite(t.owner, email, 'developer');
    const [mail] = await smtp.mailsTo(email);
    expect(mail).toMatchObject({ from: 'no-reply@gen.example', subject: `Join ${t.name} on the Generation Service` });
    expect(mail.text).toContain(`${t.email} invited you to join the account "${t.name}"`);
    expect(mail.text).toContain('as a developer');
    expect(mail.text).toContain('within 72 hours');

    const c = await anonymous();
    expect((await c.request('POST', '/sign-up', { body: { email, password: TEST_PASSWORD } })).status).toBe(403);
    const preview = await c.request('POST', '/invitations/preview', { body: { token } });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({ account: { id: t.accountId, name: t.name }, email, role: 'developer', invited_by: t.email, expires_at: expect.any(String), has_user: false });
    expect(Date.parse(preview.body.expires_at) - Date.now()).toBeGreaterThan(71.9 * 3600_000);

    const short = await c.request('POST', '/invitations/accept-sign-up', { body: { token, password: 'short' } });
    expect({ status: short.status, message: short.body.error.message }).toEqual({ status: 422, message: 'password: Use at least 10 characters.' });
    const joined = await c.request('POST', '/invitations/accept-sign-up', { body: { token, password: TEST_PASSWORD } });
    expect(joined.status).toBe(201);
    expect(joined.body).toMatchObject({ signed_in: true, user: { email }, account: { id: t.accountId, name: t.name, role: 'developer' } });
    expect(joined.body.accounts).toEqual([{ id: t.accountId, name: t.name, role: 'developer' }]);
    // The newcomer has no account of their own (no free credits through an invitation), and can sign in again.
    expect((await client().signIn(email, TEST_PASSWORD)).body.account).toEqual({ id: t.accountId, name: t.name, role: 'developer' });

    const members = (await t.owner.request('GET', '/members')).body;
    expect(members.data.map((m: any) => [m.email, m.role, m.you])).toEqual([
      [t.email, 'owner', true],
      [email, 'developer', false],
    ]);
    expect(members.invitations).toEqual([]);
    const audit = (await t.owner.request('GET', '/audit')).body.data.map((e: any) => [e.action, e.actor, e.target, e.details]);
    expect(audit.slice(0, 3)).toEqual([
      ['user.signed_in', email, email, {}],
      ['member.joined', email, email, { role: 'developer' }],
      ['member.invited', t.email, email, { role: 'developer' }],
    ]);
  });

  it('refuses a reused, an expired and a forged invitation token, and changes nothing', async () => {
    const t = await team();
    const { c: first } = await join(t.owner, 'viewer');
    expect(first).toBeDefined();
    const used = await invite(t.owner, testEmail('twice'), 'viewer');
    const c = await anonymous();
    expect((await c.request('POST', '/invitations/accept-sign-up', { body: { token: used, password: TEST_PASSWORD } })).status).toBe(201);
    const reused = await (await anonymous()).request('POST', '/invitations/accept-sign-up', { body: { token: used, password: 'another long password' } });
    expect({ status: reused.status, code: reused.body.error.code }).toEqual({ status: 422, code: 'validation_error' });

    const lateEmail = testEmail('late');
    const late = await invite(t.owner, lateEmail, 'admin');
    await h.running.databases.auth.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE email = $1`, [lateEmail]);
    const a = await anonymous();
    const expired = await a.request('POST', '/invitations/accept-sign-up', { body: { token: late, password: TEST_PASSWORD } });
    expect(expired.body.error.message).toMatch(/^token: This invitation is not valid/);
    // Through the locked path too (a session's accept): the expiry is named.
    const signedIn = (await join(t.owner, 'viewer', 'other')).c;
    const expiredAccept = await signedIn.request('POST', '/invitations/accept', { body: { token: late } });
    expect({ status: expiredAccept.status, message: expiredAccept.body.error.message }).toEqual({ status: 422, message: EXPIRED });

    const forged = await a.request('POST', '/invitations/accept-sign-up', { body: { token: 'A'.repeat(43), password: TEST_PASSWORD } });
    expect({ status: forged.status, code: forged.body.error.code }).toEqual({ status: 422, code: 'validation_error' });
    expect((await a.request('POST', '/invitations/preview', { body: { token: 'x'.repeat(201) } })).status).toBe(422);
    const forgedAccept = await signedIn.request('POST', '/invitations/accept', { body: { token: 'B'.repeat(43) } });
    expect({ status: forgedAccept.status, message: forgedAccept.body.error.message }).toEqual({ status: 422, message: INVALID });
    // No user for the expired address, and the team has the owner and the three who joined.
    expect(await h.running.databases.auth.query(`SELECT 1 FROM users WHERE email = $1`, [lateEmail])).toEqual([]);
    expect((await t.owner.request('GET', '/members')).body.data).toHaveLength(4);
  });

  it('lets ten concurrent uses of one invitation make exactly one user and one member', async () => {
    const t = await team();
    const email = testEmail('race');
    const token = await invite(t.owner, email, 'developer');
    const clients = await Promise.all(Array.from({ length: 10 }, () => anonymous()));
    const answers = await Promise.all(clients.map((c) => c.request('POST', '/invitations/accept-sign-up', { body: { token, password: TEST_PASSWORD } })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, ...Array<number>(9).fill(422)]);
    expect(await h.running.databases.auth.query(`SELECT 1 FROM users WHERE email = $1`, [email])).toHaveLength(1);
    expect((await t.owner.request('GET', '/members')).body.data).toHaveLength(2);
    expect((await t.owner.request('GET', '/audit?action=member.joined')).body.data).toHaveLength(1);
  });

  it('refuses an invitation of an address that is a member already (409 in the envelope), and one to a user of another address', async () => {
    const t = await team();
    const dev = await join(t.owner, 'developer');
    const res = await t.owner.request('POST', '/members/invitations', { body: { email: dev.email.toUpperCase(), role: 'admin' } });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', message: `email: ${dev.email.toUpperCase()} is a member of this account already.` });
    expect((await t.owner.request('POST', '/members/invitations', { body: { email: t.email, role: 'viewer' } })).status).toBe(409);
    expect((await t.owner.request('POST', '/members/invitations', { body: { email: 'not an address', role: 'viewer' } })).status).toBe(422);
    expect((await t.owner.request('POST', '/members/invitations', { body: { email: testEmail('x'), role: 'root' } })).status).toBe(422);

    // An invitation for someone else, opened in the developer's signed-in browser.
    const other = testEmail('someone');
    const token = await invite(t.owner, other, 'viewer');
    const wrong = await dev.c.request('POST', '/invitations/accept', { body: { token } });
    expect({ status: wrong.status, message: wrong.body.error.message }).toEqual({ status: 403, message: `This invitation is for ${other}: sign in with that address to accept it.` });
    const pending = (await t.owner.request('GET', '/members')).body.invitations;
    expect(pending.map((i: any) => [i.email, i.role, i.invited_by, i.expired])).toEqual([[other, 'viewer', t.email, false]]);
  });

  it('lets an existing user accept by signing in, then switch between their accounts', async () => {
    const t = await team('hosts');
    const own = await team('guest');
    const token = await invite(t.owner, own.email, 'admin');
    const c = await anonymous();
    expect((await c.request('POST', '/invitations/preview', { body: { token } })).body.has_user).toBe(true);
    // An address already with a user cannot take a new password through the link.
    expect((await c.request('POST', '/invitations/accept-sign-up', { body: { token, password: 'a brand new passphrase' } })).status).toBe(409);
    const wrongAddress = await c.request('POST', '/invitations/accept-sign-in', { body: { token, email: t.email, password: t.password } });
    expect({ status: wrongAddress.status, message: wrongAddress.body.error.message }).toEqual({ status: 422, message: `email: This invitation is for ${own.email}.` });
    expect((await c.request('POST', '/invitations/accept-sign-in', { body: { token, email: own.email, password: 'not the password at all' } })).status).toBe(401);
    const joined = await c.request('POST', '/invitations/accept-sign-in', { body: { token, email: own.email, password: own.password } });
    expect(joined.status).toBe(200);
    c.csrf = joined.body.csrf_token;
    expect(joined.body.account).toEqual({ id: t.accountId, name: t.name, role: 'admin' });
    expect(joined.body.accounts.map((a: any) => a.role).sort()).toEqual(['admin', 'owner']);

    const back = await c.request('PUT', '/session/account', { body: { account_id: own.accountId } });
    expect(back.body.account).toEqual({ id: own.accountId, name: own.name, role: 'owner' });
    expect((await c.request('GET', '/overview')).body.account.id).toBe(own.accountId);
    // The next sign-in opens the account used last.
    expect((await client().signIn(own.email, own.password)).body.account.id).toBe(own.accountId);
    const stranger = await team('stranger');
    const refused = await c.request('PUT', '/session/account', { body: { account_id: stranger.accountId } });
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 403, code: 'forbidden' });
    expect((await c.request('PUT', '/session/account', { body: { account_id: 'nope' } })).status).toBe(422);
  });

  it('refuses (403 in the envelope) a developer or viewer calling a route their role does not allow, and changes nothing', async () => {
    const t = await team();
    const key = (await t.owner.request('POST', '/keys', { body: { name: 'ci' } })).body.key;
    const dev = await join(t.owner, 'developer');
    const viewer = await join(t.owner, 'viewer');
    const forbidden = async (c: DashboardClient, method: string, path: string, body?: unknown) => {
      const res = await c.request(method, path, { body });
      expect({ path, status: res.status, code: res.body?.error?.code }).toEqual({ path, status: 403, code: 'forbidden' });
      return res.body.error.message as string;
    };
    expect(await forbidden(dev.c, 'PUT', `/keys/${key.id}/caps`, { per_day: 1 })).toBe(
      'Your role on this account is developer; this needs an admin or above. Ask an owner or admin of the account.',
    );
    await forbidden(dev.c, 'PATCH', `/keys/${key.id}`, { webhook_url: 'https://hooks.example.com/x' });
    await forbidden(dev.c, 'POST', `/keys/${key.id}/webhook-secret`);
    await forbidden(dev.c, 'GET', '/audit');
    await forbidden(dev.c, 'GET', '/audit/entries.csv');
    await forbidden(dev.c, 'POST', '/members/invitations', { email: testEmail('x'), role: 'viewer' });
    await forbidden(dev.c, 'PUT', `/members/${viewer.userId}/role`, { role: 'admin' });
    await forbidden(dev.c, 'DELETE', `/members/${viewer.userId}`);
    await forbidden(dev.c, 'POST', '/members/transfer-ownership', { user_id: dev.userId });
    await forbidden(viewer.c, 'POST', '/keys', { name: 'sneaky' });
    await forbidden(viewer.c, 'DELETE', `/keys/${key.id}`);
    await forbidden(viewer.c, 'POST', `/keys/${key.id}/generate`, { model: 'image-1', prompt: 'x' });

    // What each may do, they can.
    expect((await dev.c.request('POST', '/keys', { body: { name: 'dev key' } })).status).toBe(201);
    expect((await viewer.c.request('GET', '/keys')).status).toBe(200);
    expect((await viewer.c.request('GET', '/members')).body.invitations).toEqual([]);
    const keys = (await t.owner.request('GET', '/keys')).body.data;
    expect(keys.map((k: any) => [k.name, k.webhook_url, k.caps.per_day])).toEqual(
      expect.arrayContaining([
        ['ci', null, null],
        ['dev key', null, null],
      ]),
    );
    expect(keys).toHaveLength(2);
  });

  it('ends a removed member’s open session at once', async () => {
    const t = await team();
    const dev = await join(t.owner, 'developer');
    expect((await dev.c.request('GET', '/overview')).status).toBe(200);
    const removed = await t.owner.request('DELETE', `/members/${dev.userId}`);
    expect({ status: removed.status, body: removed.body }).toEqual({ status: 200, body: { ended_sessions: 1, canceled_invitations: 0, revoked_keys: 0 } });
    const after = await dev.c.request('GET', '/overview');
    expect({ status: after.status, code: after.body.error.code }).toEqual({ status: 401, code: 'unauthorized' });
    // Belonging to no account any more, they cannot sign in until invited again.
    const again = await client().signIn(dev.email, TEST_PASSWORD);
    expect({ status: again.status, code: again.body.error.code }).toEqual({ status: 403, code: 'forbidden' });
    const audit = (await t.owner.request('GET', '/audit?action=member.removed')).body.data;
    expect(audit).toEqual([expect.objectContaining({ actor: t.email, target: dev.email, details: { role: 'developer', left: false, ended_sessions: 1 } })]);
  });

  it('keeps the last owner, limits admins to non-owners, changes roles and transfers ownership', async () => {
    const t = await team();
    const admin = await join(t.owner, 'admin');
    const dev = await join(t.owner, 'developer');
    const ownerId = (await t.owner.request('GET', '/session')).body.user.id;

    const leave = await t.owner.request('DELETE', `/members/${ownerId}`);
    expect({ status: leave.status, code: leave.body.error.code }).toEqual({ status: 409, code: 'conflict' });
    expect(leave.body.error.message).toMatch(/^The last owner cannot leave the account/);
    const demote = await t.owner.request('PUT', `/members/${ownerId}/role`, { body: { role: 'admin' } });
    expect({ status: demote.status, code: demote.body.error.code }).toEqual({ status: 409, code: 'conflict' });

    expect((await admin.c.request('PUT', `/members/${ownerId}/role`, { body: { role: 'viewer' } })).status).toBe(403);
    expect((await admin.c.request('DELETE', `/members/${ownerId}`)).status).toBe(403);
    expect((await admin.c.request('PUT', `/members/${dev.userId}/role`, { body: { role: 'owner' } })).status).toBe(403);
    expect((await admin.c.request('POST', '/members/invitations', { body: { email: testEmail('boss'), role: 'owner' } })).status).toBe(403);
    expect((await admin.c.request('PUT', `/members/${dev.userId}/role`, { body: { role: 'viewer' } })).status).toBe(204);
    // The new role applies to the open session at once.
    expect((await dev.c.request('POST', '/keys', { body: { name: 'now a viewer' } })).status).toBe(403);
    expect((await t.owner.request('PUT', '/members/00000000-0000-4000-8000-000000000000/role', { body: { role: 'viewer' } })).status).toBe(404);

    expect((await admin.c.request('POST', '/members/transfer-ownership', { body: { user_id: dev.userId } })).status).toBe(403);
    expect((await t.owner.request('POST', '/members/transfer-ownership', { body: { user_id: dev.userId } })).status).toBe(204);
    const roles = (await t.owner.request('GET', '/members')).body.data.map((m: any) => [m.email, m.role]);
    expect(roles).toEqual(expect.arrayContaining([[dev.email, 'owner'], [t.email, 'admin'], [admin.email, 'admin']]));
    // The former owner, now an admin, may leave; the audit log has each change.
    expect((await t.owner.request('DELETE', `/members/${ownerId}`)).status).toBe(200);
    const log = (await dev.c.request('GET', '/audit')).body.data.map((e: any) => [e.action, e.actor, e.target]);
    expect(log.slice(0, 3)).toEqual([
      ['member.removed', t.email, t.email],
      ['account.ownership_transferred', t.email, dev.email],
      ['member.role_changed', admin.email, dev.email],
    ]);
  });

  it('withdraws an invitation (its link stops working) and replaces an earlier one to the same address', async () => {
    const t = await team();
    const email = testEmail('maybe');
    const first = await invite(t.owner, email, 'viewer');
    const second = await invite(t.owner, email, 'developer');
    const a = await anonymous();
    expect((await a.request('POST', '/invitations/preview', { body: { token: first } })).status).toBe(422);
    expect((await a.request('POST', '/invitations/preview', { body: { token: second } })).body.role).toBe('developer');
    const [pending] = (await t.owner.request('GET', '/members')).body.invitations;
    expect((await t.owner.request('DELETE', `/members/invitations/${pending.id}`)).status).toBe(204);
    expect((await t.owner.request('DELETE', `/members/invitations/${pending.id}`)).status).toBe(404);
    expect((await a.request('POST', '/invitations/preview', { body: { token: second } })).status).toBe(422);
    expect((await t.owner.request('GET', '/audit?action=member.invitation_revoked')).body.data).toHaveLength(1);
  });
});
