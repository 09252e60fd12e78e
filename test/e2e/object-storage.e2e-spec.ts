import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { JobJanitorService } from '@gen/generation';
import { eventually, http, S3RVER_CREDENTIALS, startS3Server, TestS3Server } from '@gen/testing';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/**
 * Outputs in an S3-compatible bucket (s3rver, started here) instead of the data folder: written by
 * generation, served by the gateway's content host (ranges, validators, cache headers, 410 after the
 * retention) or, with OUTPUT_URLS=signed, handed out as presigned GETs made fresh at each request.
 */
describe('standalone: outputs in object storage (STORAGE_DRIVER=s3)', () => {
  let s3: TestS3Server;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  beforeAll(async () => {
    s3 = await startS3Server();
    // The driver takes its credentials from the SDK's default chain, which reads this process's environment.
    process.env.AWS_ACCESS_KEY_ID = S3RVER_CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = S3RVER_CREDENTIALS.secretAccessKey;
  });
  afterAll(async () => {
    await s3?.close();
    for (const [name, value] of [['AWS_ACCESS_KEY_ID', saved.id], ['AWS_SECRET_ACCESS_KEY', saved.secret]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  async function objectNames(prefix: string): Promise<string[]> {
    const listed = await s3.client().send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
    return (listed.Contents ?? []).map((o) => o.Key!.slice(prefix.length));
  }

  async function generate(h: StandaloneHarness, key: string, model: string, type: string): Promise<{ id: string; output_url: string; status: string }> {
    const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model, prompt: 'a lighthouse at dusk', type } });
    expect([200, 202]).toContain(res.status);
    return eventually(
      async () => (await http(h.url, 'GET', `/api/v1/generations/${res.body.id}`, { key })).body,
      (r) => r.status === 'completed' || r.status === 'failed',
      30_000,
    );
  }

  describe('served by the gateway (OUTPUT_URLS=cdn)', () => {
    let h: StandaloneHarness;
    let key: string;
    beforeAll(async () => {
      h = await startStandaloneHarness({ ...s3.env('cdn-install/'), AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' });
      ({ key } = await h.account('pro', 10_000));
    });
    afterAll(() => h?.close());

    it('writes each output to the bucket under its prefix, nothing to the data folder, and serves it with caching and validators', async () => {
      const record = await generate(h, key, 'motion-lite-1', 'TEXT_TO_VIDEO');
      expect(record.status).toBe('completed');
      const objectKey = new URL(record.output_url).pathname.replace(/^\/cdn\//, '');
      expect(await objectNames('cdn-install/')).toContain(objectKey);
      expect(existsSync(join(h.dataDir, 'outputs', objectKey))).toBe(false);

      const whole = await fetch(record.output_url);
      expect(whole.status).toBe(200);
      expect(whole.headers.get('content-type')).toBe('video/mp4');
      expect(whole.headers.get('cache-control')).toBe('public, max-age=3600, immutable');
      expect(whole.headers.get('accept-ranges')).toBe('bytes');
      const etag = whole.headers.get('etag');
      expect(etag).toBe(`"${objectKey.slice(3, 35)}"`);
      const bytes = Buffer.from(await whole.arrayBuffer());
      expect(Number(whole.headers.get('content-length'))).toBe(bytes.length);
      expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');

      const part = await fetch(record.output_url, { headers: { range: 'bytes=4-7' } });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 4-7/${bytes.length}`);
      expect(part.headers.get('content-length')).toBe('4');
      expect(await part.text()).toBe('ftyp');
      const tail = await fetch(record.output_url, { headers: { range: 'bytes=-16' } });
      expect(Buffer.from(await tail.arrayBuffer())).toEqual(bytes.subarray(bytes.length - 16));
      // A stale If-Range: the whole object, not a piece of another version.
      expect((await fetch(record.output_url, { headers: { range: 'bytes=4-7', 'if-range': '"other"' } })).status).toBe(200);
      // Beyond the end: the whole object (a server may ignore a Range it cannot satisfy).
      expect((await fetch(record.output_url, { headers: { range: `bytes=${bytes.length}-` } })).status).toBe(200);

      const cached = await fetch(record.output_url, { headers: { 'if-none-match': etag! } });
      expect(cached.status).toBe(304);
      expect(await cached.text()).toBe('');
    });

    it('deletes outputs past their retention from the bucket (a batch delete); the URL then answers 410', async () => {
      const records = await Promise.all([0, 1, 2].map(() => generate(h, key, 'pixel-flux-1', 'TEXT_TO_IMAGE')));
      const keys = records.map((r) => new URL(r.output_url).pathname.replace(/^\/cdn\//, ''));
      for (const r of records) expect((await fetch(r.output_url)).status).toBe(200);
      await h.running.databases.generation.query(`UPDATE generation.jobs SET output_expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])`, [
        records.map((r) => r.id),
      ]);
      // The sweep's own timer runs every OUTPUT_SWEEP_INTERVAL_MS (a minute): one pass, by hand.
      expect(await h.running.app.get(JobJanitorService).deleteExpiredOutputs()).toBe(3);
      expect((await objectNames('cdn-install/')).filter((name) => keys.includes(name))).toEqual([]);
      expect(await h.running.app.get(JobJanitorService).deleteExpiredOutputs()).toBe(0);
      for (const r of records) {
        const gone = await fetch(r.output_url);
        expect(gone.status).toBe(410);
        expect(((await gone.json()) as { error: unknown }).error).toMatchObject({ code: 'gone', status: 410 });
      }
      expect((await fetch(records[0].output_url.replace(/[0-9a-f]{32}/, 'f'.repeat(32)))).status).toBe(404);
    });
  });

  describe('presigned (OUTPUT_URLS=signed)', () => {
    let h: StandaloneHarness;
    let key: string;
    beforeAll(async () => {
      h = await startStandaloneHarness({ ...s3.env('signed-install/'), OUTPUT_URLS: 'signed', OUTPUT_URL_TTL_SECONDS: '90' });
      ({ key } = await h.account('pro', 10_000));
    });
    afterAll(() => h?.close());

    it('keeps output_url on the content host, which answers 302 to a fresh presigned GET each time; 410 after the retention', async () => {
      const record = await generate(h, key, 'pixel-flux-1', 'TEXT_TO_IMAGE');
      expect(record.output_url.startsWith(`${h.url}/cdn/`)).toBe(true);
      const first = await fetch(record.output_url, { redirect: 'manual' });
      expect(first.status).toBe(302);
      expect(first.headers.get('cache-control')).toBe('no-store');
      const location = new URL(first.headers.get('location')!);
      expect(location.origin).toBe(s3.endpoint);
      expect(location.pathname).toBe(`/${s3.bucket}/signed-install/${new URL(record.output_url).pathname.replace(/^\/cdn\//, '')}`);
      expect(location.searchParams.get('X-Amz-Expires')).toBe('90');
      const followed = await fetch(record.output_url);
      expect(followed.status).toBe(200);
      expect(followed.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await followed.arrayBuffer()).subarray(1, 4).toString('latin1')).toBe('PNG');

      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const second = new URL((await fetch(record.output_url, { redirect: 'manual' })).headers.get('location')!);
      expect(second.searchParams.get('X-Amz-Date')).not.toBe(location.searchParams.get('X-Amz-Date'));

      await h.running.databases.generation.query(`UPDATE generation.jobs SET output_expires_at = now() - interval '1 second' WHERE id = $1`, [record.id]);
      await h.running.app.get(JobJanitorService).deleteExpiredOutputs();
      expect((await fetch(record.output_url, { redirect: 'manual' })).status).toBe(410);
    });
  });
});
