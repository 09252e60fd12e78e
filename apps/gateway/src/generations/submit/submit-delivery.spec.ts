import { Broadcasts, GenerationRecord, Subjects, SubmitGenerationRequest } from '@gen/contracts';
import { DomainError, NotFoundError, ServiceUnavailableError } from '@gen/errors';
import { generationRecord } from '@gen/testing';
import { InProcessBroadcaster, NotDeliveredError, RpcClient } from '@gen/transport';
import type { GatewaySettings } from '../../settings/gateway.tokens';
import { JobWaits } from '../live/job-waits';
import { SUBMIT_LOST_AFTER_READS, SubmitDelivery, SYNC_DEADLINE_GRACE_MS, SYNC_REREAD_MS } from './submit-delivery';

type Handler = (payload: any, timeoutMs?: number) => Promise<unknown>;

/** An RpcClient whose answers the test scripts per subject, recording every call. */
class ScriptedRpc extends RpcClient {
  readonly calls: Array<{ subject: string; payload: any; timeoutMs?: number }> = [];
  constructor(private readonly handlers: Record<string, Handler>) {
    super();
  }
  request<TReply>(subject: string, payload: unknown, timeoutMs?: number): Promise<TReply> {
    this.calls.push({ subject, payload, timeoutMs });
    const handler = this.handlers[subject];
    if (!handler) return Promise.reject(new Error(`unexpected ${subject}`));
    return handler(payload, timeoutMs) as Promise<TReply>;
  }
}

const never = () => new Promise<never>(() => undefined);
const submitRequest = (waitMs: number): SubmitGenerationRequest => ({
  jobId: '7f1f5a52-2b59-4d2c-9a55-6f0b1f4c1a01',
  accountId: 'a5b0d2f4-63f4-4a34-9b5c-8a1c9d2e3f40',
  apiKeyId: 'b1c2d3e4-0000-4000-8000-000000000001',
  model: 'pixel-flux-1',
  prompt: 'a lighthouse',
  type: 'TEXT_TO_IMAGE',
  webhookUrl: null,
  plan: 'pro',
  credits: 4,
  parallelLimit: 3,
  waitMs,
  cancelAfterSeconds: null,
});

describe('SubmitDelivery: a submit waits on its job, not on the replica that took it', () => {
  const broadcaster = new InProcessBroadcaster();
  const waits = new JobWaits(broadcaster);
  beforeAll(() => waits.onApplicationBootstrap());
  afterAll(() => waits.onApplicationShutdown());
  const settings = { rpcTimeoutMs: 10_000 } as GatewaySettings;
  const completed = (overrides: Partial<GenerationRecord> = {}) =>
    generationRecord({ id: submitRequest(0).jobId, status: 'completed', ...overrides });

  it('sends a submit no replica took (all draining) again, with the same job id, and answers its reply', async () => {
    let runs = 0;
    const rpc = new ScriptedRpc({
      [Subjects.generationSubmit]: () => (++runs < 3 ? Promise.reject(new NotDeliveredError('generation.submit')) : Promise.resolve({ finished: false, record: completed({ status: 'queued' }) })),
    });
    const reply = await new SubmitDelivery(rpc, waits, settings).deliver(submitRequest(0));
    expect(reply.record.status).toBe('queued');
    const submits = rpc.calls.filter((c) => c.subject === Subjects.generationSubmit);
    expect(submits).toHaveLength(3);
    expect(new Set(submits.map((c) => c.payload.jobId))).toEqual(new Set([submitRequest(0).jobId]));
  });

  it('after a timeout (the replica died inside the submit), reads the job before sending again: an admitted job is not submitted twice', async () => {
    const rpc = new ScriptedRpc({
      [Subjects.generationSubmit]: () => Promise.reject(new ServiceUnavailableError('A dependency did not answer in time (generation.submit); retry shortly.')),
      [Subjects.generationGet]: () => Promise.resolve(completed({ status: 'processing' })),
    });
    const reply = await new SubmitDelivery(rpc, waits, settings).deliver(submitRequest(0));
    expect(reply).toMatchObject({ finished: false, record: { status: 'processing' } });
    expect(rpc.calls.filter((c) => c.subject === Subjects.generationSubmit)).toHaveLength(1);
  });

  it('answers 200 as soon as any replica announces the job final, while the replica it went to never answers', async () => {
    const rpc = new ScriptedRpc({ [Subjects.generationSubmit]: never, [Subjects.generationGet]: never });
    const started = Date.now();
    const delivering = new SubmitDelivery(rpc, waits, settings).deliver(submitRequest(30_000));
    setTimeout(() => broadcaster.publish(Broadcasts.generationChanged, { accountId: submitRequest(0).accountId, record: completed() }), 200);
    const reply = await delivering;
    expect(reply).toMatchObject({ finished: true, record: { status: 'completed' } });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(waits.size()).toBe(0);
  });

  it('with no notice at all (lost in flight), finds the finished job by reading it', async () => {
    let reads = 0;
    const rpc = new ScriptedRpc({
      [Subjects.generationSubmit]: never,
      [Subjects.generationGet]: () => Promise.resolve(++reads === 1 ? completed({ status: 'processing' }) : completed()),
    });
    const started = Date.now();
    const reply = await new SubmitDelivery(rpc, waits, settings).deliver(submitRequest(30_000));
    expect(reply).toMatchObject({ finished: true, record: { status: 'completed' } });
    // Two reads, SYNC_REREAD_MS apart: far sooner than the wait, let alone the RPC timeout.
    expect(Date.now() - started).toBeLessThan(6_000);
  }, 10_000);

  it('answers at waitMs with the job as it stands, never later (the replica holding it dead), and 200 if it is final by then', async () => {
    const rpc = new ScriptedRpc({ [Subjects.generationSubmit]: never, [Subjects.generationGet]: () => Promise.resolve(completed({ status: 'processing' })) });
    const started = Date.now();
    const reply = await new SubmitDelivery(rpc, waits, settings).deliver(submitRequest(700));
    const elapsed = Date.now() - started;
    expect(reply).toMatchObject({ finished: false, record: { status: 'processing' } });
    expect(elapsed).toBeGreaterThanOrEqual(650);
    expect(elapsed).toBeLessThan(1_500);

    const done = new ScriptedRpc({ [Subjects.generationSubmit]: never, [Subjects.generationGet]: () => Promise.resolve(completed()) });
    expect(await new SubmitDelivery(done, waits, settings).deliver(submitRequest(300))).toMatchObject({ finished: true });
  });

  it('sends a submit again, with the same job id, when reads find no job (it died with its replica before the admission)', async () => {
    let submits = 0;
    const rpc = new ScriptedRpc({
      [Subjects.generationSubmit]: () => (++submits === 1 ? never() : Promise.resolve({ finished: true, record: completed() })),
      [Subjects.generationGet]: () => Promise.reject(new NotFoundError('No generation with that id.')),
    });
    const started = Date.now();
    const reply = await new SubmitDelivery(rpc, waits, settings).deliver(submitRequest(30_000));
    expect(reply).toMatchObject({ finished: true, record: { status: 'completed' } });
    const sent = rpc.calls.filter((c) => c.subject === Subjects.generationSubmit);
    expect(sent.map((c) => c.payload.jobId)).toEqual([submitRequest(0).jobId, submitRequest(0).jobId]);
    // After SUBMIT_LOST_AFTER_READS reads SYNC_REREAD_MS apart, not at the RPC timeout or the end of the wait.
    expect(Date.now() - started).toBeLessThan(SUBMIT_LOST_AFTER_READS * SYNC_REREAD_MS + 2_000);
  }, 10_000);

  it('does not send again a submit whose job a read found (admitted, still running)', async () => {
    const rpc = new ScriptedRpc({ [Subjects.generationSubmit]: never, [Subjects.generationGet]: () => Promise.resolve(completed({ status: 'processing' })) });
    const reply = await new SubmitDelivery(rpc, waits, settings).deliver(submitRequest(4_500));
    expect(reply).toMatchObject({ finished: false, record: { status: 'processing' } });
    expect(rpc.calls.filter((c) => c.subject === Subjects.generationSubmit)).toHaveLength(1);
  }, 10_000);

  it('at waitMs with nothing able to read the job (NATS away), answers 503 soon after, not an RPC timeout later', async () => {
    const rpc = new ScriptedRpc({
      [Subjects.generationSubmit]: never,
      [Subjects.generationGet]: () => Promise.reject(new ServiceUnavailableError('NATS is not connected; retry shortly.')),
    });
    const started = Date.now();
    await expect(new SubmitDelivery(rpc, waits, settings).deliver(submitRequest(500))).rejects.toMatchObject({ code: 'service_unavailable' });
    // The wait, the read's retries (about 0.7 s) and the grace: far from the RPC timeout (10 s here).
    expect(Date.now() - started).toBeLessThan(500 + 1_000 + SYNC_DEADLINE_GRACE_MS + 1_500);
  }, 10_000);

  it('a refusal is not sent again', async () => {
    const rpc = new ScriptedRpc({ [Subjects.generationSubmit]: () => Promise.reject(new DomainError('rate_limit_exceeded', 'queue full', 2)) });
    await expect(new SubmitDelivery(rpc, waits, settings).deliver(submitRequest(0))).rejects.toMatchObject({ code: 'rate_limit_exceeded' });
    expect(rpc.calls).toHaveLength(1);
  });
});
