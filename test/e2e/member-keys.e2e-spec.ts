import { http } from '@gen/testing';
import { SmtpSink, startSmtpSink } from '../support/smtp-sink';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';
import { Teams } from '../support/team';

/**
 * What a member's role lets them do with keys (docs/guide/dashboard.md, "Members and roles"): a
 * developer cannot get around the admin-only key settings by making a new key.
 */
describe('standalone: keys made by members', () => {
  let h: StandaloneHarness;
  let smtp: SmtpSink;
  let teams: Teams;

  beforeAll(async () => {
    smtp = await startSmtpSink();
    h = await startStandaloneHarness({ SMTP_URL: smtp.url, MAIL_FROM: 'Gen <no-reply@gen.example>', SIGNUP_MODE: 'invite' });
    teams = new Teams(h, smtp, '198.18.9');
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  it('a developer makes keys with every scope, no webhook URL or secret, and the account default caps', async () => {
    const t = await teams.team();
    const dev = await teams.join(t.owner, 'developer');
    for (const body of [
      { name: 'narrow', scopes: ['generate'] },
      { name: 'hooked', webhook_url: 'https://hooks.example.com/x' },
    ]) {
      const refused = await dev.c.request('POST', '/keys', { body });
      expect({ status: refused.status, code: refused.body.error?.code }).toEqual({ status: 403, code: 'forbidden' });
      expect(refused.body.error.message).toMatch(/^Your role on this account is developer: your new key has every scope/);
    }
    // Only admins set the defaults; a viewer reads them.
    expect((await dev.c.request('PUT', '/keys/defaults', { body: { per_day: 5 } })).status).toBe(403);
    const set = await t.owner.request('PUT', '/keys/defaults', { body: { per_day: 5, per_month: 50 } });
    expect({ status: set.status, body: set.body }).toEqual({ status: 200, body: { per_day: 5, per_month: 50 } });
    expect((await dev.c.request('GET', '/keys/defaults')).body).toEqual({ per_day: 5, per_month: 50 });
    expect((await t.owner.request('PUT', '/keys/defaults', { body: { per_day: 0 } })).status).toBe(422);

    const made = await dev.c.request('POST', '/keys', { body: { name: 'dev key' } });
    expect(made.status).toBe(201);
    expect(made.body.webhook_secret).toBeNull();
    const listed = (await t.owner.request('GET', '/keys')).body.data.find((k: { id: string }) => k.id === made.body.key.id);
    expect(listed).toMatchObject({ webhook_url: null, caps: { per_day: 5, per_month: 50 } });
    // The cap binds the developer's key on the API.
    const spent = [];
    for (let i = 0; i < 3; i++) {
      spent.push((await http(h.url, 'POST', '/api/v1/generate', { key: made.body.api_key, body: { model: 'pixel-flux-1', prompt: 'x', type: 'TEXT_TO_IMAGE' } })).status);
    }
    expect(spent).toContain(402);

    // An admin still gives scopes and a webhook URL, and the new key gets the defaults too.
    const admin = await teams.join(t.owner, 'admin');
    const full = await admin.c.request('POST', '/keys', { body: { name: 'hooked', scopes: ['generate', 'read'], webhook_url: 'https://hooks.example.com/x' } });
    expect(full.status).toBe(201);
    expect(full.body.webhook_secret).toEqual(expect.any(String));
    const audit = (await t.owner.request('GET', '/audit?action=account.key_defaults_set')).body.data;
    expect(audit).toEqual([expect.objectContaining({ actor: t.email, details: { per_day: 5, per_month: 50 } })]);
  });

  it('removing a member withdraws the invitations they sent and, when asked, revokes the keys they made; all audited', async () => {
    const t = await teams.team();
    const admin = await teams.join(t.owner, 'admin');
    const theirs = await admin.c.request('POST', '/keys', { body: { name: 'admin made' } });
    const ownerKey = await t.owner.request('POST', '/keys', { body: { name: 'owner made' } });
    const invited = `invitee-${Date.now()}@example.com`;
    const token = await teams.invite(admin.c, invited, 'viewer');

    expect((await t.owner.request('DELETE', `/members/${admin.userId}?revoke_keys=maybe`)).status).toBe(422);
    const removed = await t.owner.request('DELETE', `/members/${admin.userId}?revoke_keys=true`);
    expect({ status: removed.status, body: removed.body }).toEqual({ status: 200, body: { ended_sessions: 1, canceled_invitations: 1, revoked_keys: 1 } });

    // Their key answers 401 at once; the owner's works; their invitation link no longer does.
    const call = (key: string) => http(h.url, 'GET', '/api/v1/credits', { key });
    expect((await call(theirs.body.api_key)).status).toBe(401);
    expect((await call(ownerKey.body.api_key)).status).toBe(200);
    const anonymous = teams.client();
    await anonymous.session();
    expect((await anonymous.request('POST', '/invitations/preview', { body: { token } })).status).toBe(422);

    const audit = (await t.owner.request('GET', '/audit')).body.data;
    expect(audit).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'key.revoked', target: theirs.body.key.id, details: { name: 'admin made', reason: 'creator removed' } }),
        expect.objectContaining({ action: 'member.invitation_revoked', target: invited, details: { role: 'viewer', reason: 'inviter removed' } }),
        expect.objectContaining({ action: 'member.removed', target: admin.email }),
      ]),
    );
  });

  it('without revoke_keys the keys they made keep working (the dashboard asks), and the invitations still go', async () => {
    const t = await teams.team();
    const dev = await teams.join(t.owner, 'developer');
    const theirs = await dev.c.request('POST', '/keys', { body: { name: 'dev made' } });
    const removed = await t.owner.request('DELETE', `/members/${dev.userId}`);
    expect(removed.body).toEqual({ ended_sessions: 1, canceled_invitations: 0, revoked_keys: 0 });
    expect((await http(h.url, 'GET', '/api/v1/credits', { key: theirs.body.api_key })).status).toBe(200);
  });
});
