import { DashboardClient, TEST_PASSWORD, testEmail } from '../support/dashboard-client';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/** The audit log through the dashboard (standalone): what is recorded, by whom, from where; filters and the CSV export. */
describe('standalone: audit log in the dashboard', () => {
  let h: StandaloneHarness;
  let address = 0;
  const client = () => {
    const ip = `192.0.2.${++address}`;
    return { c: new DashboardClient(h.url, { 'x-forwarded-for': ip }), ip };
  };

  beforeAll(async () => {
    h = await startStandaloneHarness({ SIGNUP_CREDITS: '100' });
  });
  afterAll(() => h?.close());

  const entries = async (c: DashboardClient, query = '') => {
    const res = await c.request('GET', `/audit${query}`);
    expect(res.status).toBe(200);
    return res.body as { data: Array<Record<string, any>>; next_cursor: string | null; actions: string[]; actors: string[] };
  };

  it('records sign-up, key changes, caps, failed and good sign-ins and a password change, each with who and the client address', async () => {
    const { c, ip } = client();
    const email = testEmail('audit');
    expect((await c.signUp(email, TEST_PASSWORD)).status).toBe(201);
    const key = (await c.request('POST', '/keys', { body: { name: 'ci' } })).body.key;
    expect((await c.request('PATCH', `/keys/${key.id}`, { body: { webhook_url: 'https://hooks.example.com/gen' } })).status).toBe(200);
    expect((await c.request('POST', `/keys/${key.id}/webhook-secret`)).status).toBe(200);
    expect((await c.request('PUT', `/keys/${key.id}/caps`, { body: { per_day: 25 } })).status).toBe(200);
    expect((await c.request('DELETE', `/keys/${key.id}`)).status).toBe(204);
    const other = client();
    expect((await other.c.signIn(email, 'not the password at all')).status).toBe(401);
    expect((await other.c.signIn(email, TEST_PASSWORD)).status).toBe(200);
    expect(
      (await c.request('POST', '/account/password', { body: { current_password: TEST_PASSWORD, new_password: 'another long password' } })).status,
    ).toBe(200);

    const log = await entries(c);
    expect(log.data.map((e) => [e.action, e.actor, e.ip])).toEqual([
      ['user.password_changed', email, ip],
      ['user.signed_in', email, other.ip],
      ['user.sign_in_failed', email, other.ip],
      ['key.revoked', email, ip],
      ['key.caps_set', email, ip],
      ['key.secret_renewed', email, ip],
      ['key.secret_generated', email, ip],
      ['key.webhook_url_set', email, ip],
      ['key.created', email, ip],
      ['user.signed_up', email, ip],
    ]);
    expect(log.data.find((e) => e.action === 'key.caps_set')).toMatchObject({
      actor_kind: 'user',
      target: key.id,
      details: { name: 'ci', per_day: 25, per_month: null },
      at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    expect(log.data.find((e) => e.action === 'user.password_changed')?.details).toEqual({ ended_sessions: 1 });
    expect(log.actors).toEqual([email]);
    expect(log.actions).toContain('key.revoked');
  });

  it('records a key renamed and its scopes changed, each with the value before; the new scopes apply to the key at once; bad changes are 422 and change nothing', async () => {
    const { c, ip } = client();
    const email = testEmail('relabel');
    expect((await c.signUp(email, TEST_PASSWORD)).status).toBe(201);
    const created = (await c.request('POST', '/keys', { body: { name: 'first name' } })).body;
    const key = created.key;
    const api = (path: string) => fetch(`${h.url}/api/v1${path}`, { headers: { authorization: `Bearer ${created.api_key}` } });
    expect((await api('/generations')).status).toBe(200);

    const renamed = await c.request('PUT', `/keys/${key.id}/label`, { body: { name: '  second name ' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: key.id, name: 'second name' });
    const scoped = await c.request('PUT', `/keys/${key.id}/label`, { body: { scopes: ['generate'] } });
    expect(scoped.status).toBe(200);
    expect(scoped.body.scopes).toEqual(['generate']);
    // The very next request with the key has lost `read`.
    expect((await api('/generations')).status).toBe(403);

    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { scopes: [] }, { scopes: ['everything'] }, { name: 7 }]) {
      const res = await c.request('PUT', `/keys/${key.id}/label`, { body });
      expect({ body, status: res.status, code: res.body?.error?.code }).toEqual({ body, status: 422, code: 'validation_error' });
    }
    expect((await c.request('PUT', '/keys/00000000-0000-4000-8000-000000000000/label', { body: { name: 'nobody' } })).status).toBe(404);

    const log = await entries(c);
    expect(log.data.slice(0, 2).map((e) => [e.action, e.actor, e.ip, e.target, e.details])).toEqual([
      ['key.scopes_changed', email, ip, key.id, { name: 'second name', scopes: ['generate'], from: key.scopes }],
      ['key.renamed', email, ip, key.id, { name: 'second name', from: 'first name' }],
    ]);
    const keys = (await c.request('GET', '/keys')).body;
    expect(JSON.stringify(keys)).toContain('second name');
  });

  it('filters by action and actor, pages with a cursor, refuses an unknown action, and exports what the filters select as CSV', async () => {
    const { c } = client();
    const email = testEmail('auditcsv');
    expect((await c.signUp(email, TEST_PASSWORD)).status).toBe(201);
    for (const name of ['a', 'b', 'c']) expect((await c.request('POST', '/keys', { body: { name: `=HYPERLINK("x",${name})` } })).status).toBe(201);

    expect((await entries(c, '?action=key.created')).data).toHaveLength(3);
    expect((await entries(c, `?actor=${encodeURIComponent(email.toUpperCase())}&action=user.signed_up`)).data).toHaveLength(1);
    expect((await entries(c, '?actor=nobody@example.com')).data).toEqual([]);
    const first = await entries(c, '?limit=2');
    expect(first.next_cursor).not.toBeNull();
    const second = await entries(c, `?limit=2&cursor=${first.next_cursor}`);
    expect(second.data.map((e) => e.action)).toEqual(['key.created', 'user.signed_up']);
    const bad = await c.request('GET', '/audit?action=key.exploded');
    expect(bad.status).toBe(422);
    expect(bad.body.error.message).toMatch(/^action: must be one of account.created, /);

    const res = await fetch(`${h.url}/dashboard/api/audit/entries.csv?action=key.created`, {
      headers: { cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await res.text()).trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,at,actor_kind,actor,ip,action,target,details');
    expect(lines).toHaveLength(4);
    expect(lines.slice(1).every((line) => line.includes(',key.created,'))).toBe(true);
    // The details are JSON in one quoted field (quotes doubled), newest entry first.
    expect(lines[1]).toContain(`"{""name"":""=HYPERLINK(\\""x\\"",c)""`);
  });

  it("shows an account only its own entries, and nothing without a session", async () => {
    const alice = client();
    const bob = client();
    expect((await alice.c.signUp(testEmail('alice'), TEST_PASSWORD)).status).toBe(201);
    const bobEmail = testEmail('bob');
    expect((await bob.c.signUp(bobEmail, TEST_PASSWORD)).status).toBe(201);
    expect((await alice.c.request('POST', '/keys', { body: { name: 'alice key' } })).status).toBe(201);
    expect((await entries(bob.c)).data.map((e) => [e.action, e.actor])).toEqual([['user.signed_up', bobEmail]]);
    expect((await client().c.request('GET', '/audit')).status).toBe(401);
    expect((await fetch(`${h.url}/dashboard/api/audit/entries.csv`)).status).toBe(401);
  });
});
