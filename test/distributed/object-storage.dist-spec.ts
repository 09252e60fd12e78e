import { readdirSync } from 'node:fs';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { eventually, http, startS3Server, TestS3Server } from '@gen/testing';
import { DistributedHarness, startDistributed } from '../support/distributed-harness';

interface Record {
  id: string;
  status: string;
  output_url: string | null;
}

/**
 * Past one machine: two generation replicas write outputs to an S3-compatible bucket (s3rver, in the
 * test process), and each of two gateways serves every output, whichever replica wrote it, with no
 * shared folder (the one STORAGE_DIR the harness gives every process stays empty: nothing uses it).
 * The retention sweep removes the objects from the bucket; both gateways then answer 410.
 */
describe('distributed: outputs in object storage, any gateway serves any output', () => {
  let s3: TestS3Server;
  let h: DistributedHarness;
  const TYPES: { [model: string]: string } = { 'pixel-flux-1': 'TEXT_TO_IMAGE', 'motion-lite-1': 'TEXT_TO_VIDEO', 'tone-weaver-1': 'TEXT_TO_AUDIO', 'mesh-smith-1': 'TEXT_TO_3D' };

  beforeAll(async () => {
    s3 = await startS3Server();
    h = await startDistributed({
      replicas: { generation: 2, gateway: 2 },
      env: { ...s3.env('dist/'), ENGINE_LATENCY_SCALE: '0.3' },
      appEnv: { generation: { OUTPUT_SWEEP_INTERVAL_MS: '200', WORKER_CONCURRENCY: '2' } },
    });
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    await s3?.close();
  });

  const objectNames = async (): Promise<string[]> => {
    const listed = await s3.client().send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'dist/' }));
    return (listed.Contents ?? []).map((o) => o.Key!.slice('dist/'.length));
  };
  const keyOf = (record: Record) => new URL(record.output_url!).pathname.replace(/^\/cdn\//, '');
  const finishedBy = async (index: number): Promise<number> => {
    const text = await (await fetch(`${h.httpUrl('generation', index)}/metrics`)).text();
    return [...text.matchAll(/^gen_jobs_finished_total\{[^}]*status="completed"[^}]*\} (\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  };

  it('every output, written by either generation replica, is served whole and by range by both gateways; none touches a folder', async () => {
    const { key } = await h.account('enterprise', 100_000);
    const models = Object.keys(TYPES);
    // Submitted through both gateways, enough jobs that both replicas (two slots each) take some.
    const submitted = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const model = models[i % models.length];
        const res = await http(h.urls[i % 2], 'POST', '/api/v1/generate', { key, body: { model, prompt: `shared ${i}`, type: TYPES[model] } });
        expect([200, 202]).toContain(res.status);
        return res.body.id as string;
      }),
    );
    const records = await Promise.all(
      submitted.map((id, i) =>
        eventually(
          async () => (await http(h.urls[i % 2], 'GET', `/api/v1/generations/${id}`, { key })).body as Record,
          (r) => r.status === 'completed' || r.status === 'failed',
          60_000,
          100,
        ),
      ),
    );
    expect(records.map((r) => r.status)).toEqual(records.map(() => 'completed'));
    expect(await finishedBy(0)).toBeGreaterThan(0);
    expect(await finishedBy(1)).toBeGreaterThan(0);
    expect((await objectNames()).sort()).toEqual(records.map(keyOf).sort());

    for (const record of records) {
      const path = new URL(record.output_url!).pathname;
      const bodies: Buffer[] = [];
      for (const gateway of h.urls) {
        const whole = await fetch(`${gateway}${path}`);
        expect([gateway, path, whole.status]).toEqual([gateway, path, 200]);
        expect(whole.headers.get('cache-control')).toBe('public, max-age=3600, immutable');
        bodies.push(Buffer.from(await whole.arrayBuffer()));
        const part = await fetch(`${gateway}${path}`, { headers: { range: 'bytes=0-3' } });
        expect(part.status).toBe(206);
        expect(Buffer.from(await part.arrayBuffer())).toEqual(bodies.at(-1)!.subarray(0, 4));
      }
      expect(bodies[0].length).toBeGreaterThan(0);
      expect(bodies[1].equals(bodies[0])).toBe(true);
    }
    // The folder the harness gives every process stays empty: nothing is written to or read from it.
    expect(readdirSync(h.storageDir)).toEqual([]);

    // Retention: the sweep (any replica) deletes the objects; both gateways answer 410.
    const expiring = records.slice(0, 3);
    await h.query(`UPDATE generation.jobs SET output_expires_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])`, [expiring.map((r) => r.id)]);
    const left = await eventually(objectNames, (names) => expiring.every((r) => !names.includes(keyOf(r))), 20_000, 200);
    expect(left.sort()).toEqual(records.slice(3).map(keyOf).sort());
    for (const record of expiring) {
      for (const gateway of h.urls) expect((await fetch(`${gateway}${new URL(record.output_url!).pathname}`)).status).toBe(410);
    }
  });
});
