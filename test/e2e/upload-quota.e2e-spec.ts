import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/** A PNG as far as any sniffing goes. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(1000, 7)]);
const MB = 1024 * 1024;

/** The daily upload quota of each plan (docs/guide/limits.md, "Uploads per day"). */
describe('uploads: a daily quota per plan, in the envelope when reached', () => {
  let h: StandaloneHarness;

  beforeAll(async () => {
    h = await startStandaloneHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const upload = (key: string) =>
    fetch(`${h.url}/api/v1/uploads`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'image/png' }, body: PNG }).then(async (res) => ({
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      body: (await res.json()) as Record<string, any>,
    }));
  /** Today's usage, as if the account had uploaded this much already (UTC day). */
  const used = (accountId: string, bytes: number, files: number) =>
    h.running.databases.auth.query(
      `INSERT INTO upload_usage (account_id, day, bytes, files) VALUES ($1, (now() AT TIME ZONE 'UTC')::date, $2, $3)
       ON CONFLICT (account_id, day) DO UPDATE SET bytes = EXCLUDED.bytes, files = EXCLUDED.files`,
      [accountId, bytes, files],
    );

  it('counts each upload, and refuses the one past the Free plan’s files per day with 429 and when it resets', async () => {
    const { key, accountId } = await h.account('free', 0);
    expect((await upload(key)).status).toBe(201);
    const [row] = await h.running.databases.auth.query(`SELECT bytes::int AS bytes, files FROM upload_usage WHERE account_id = $1`, [accountId]);
    expect(row).toEqual({ bytes: PNG.length, files: 1 });
    await used(accountId, 10 * MB, 200);
    const refused = await upload(key);
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 429, code: 'rate_limit_exceeded' });
    expect(refused.body.error.message).toMatch(/^Daily upload quota reached: the free plan may upload 500 MB in 200 files per day \(UTC\); this account has uploaded 10 MB in 200 today\. The quota resets at \d{4}-\d\d-\d\dT00:00:00Z\.$/);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
  });

  it('refuses a file that would pass the bytes of the day, and keeps nothing of it', async () => {
    const { key, accountId } = await h.account('free', 0);
    await used(accountId, 500 * MB - 10, 3);
    const refused = await upload(key);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toContain('and this file is 1008 bytes');
    const [{ n }] = await h.running.databases.auth.query(`SELECT count(*)::int AS n FROM uploads WHERE account_id = $1`, [accountId]);
    expect(n).toBe(0);
  });

  it('a larger plan has a larger quota', async () => {
    const { key, accountId } = await h.account('pro', 0);
    await used(accountId, 10 * MB, 200);
    expect((await upload(key)).status).toBe(201);
  });
});
