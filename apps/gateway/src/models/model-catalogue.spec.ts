import { Broadcasts, ListModelsReply, ModelInfo } from '@gen/contracts';
import { ServiceUnavailableError } from '@gen/errors';
import { InProcessBroadcaster, RpcClient } from '@gen/transport';
import type { GatewaySettings } from '../settings/gateway.tokens';
import { ModelCatalogue } from './model-catalogue';
import { RPC_ATTEMPTS } from '../rpc/rpc-retries';

/** The generation replicas, as the catalogue reads see them: a queue of replies (or failures), then failures. */
class ScriptedCatalogue extends RpcClient {
  calls = 0;
  constructor(private readonly replies: Array<ListModelsReply | Error>) {
    super();
  }
  async request<TReply>(): Promise<TReply> {
    this.calls++;
    const next = this.replies.shift() ?? new ServiceUnavailableError();
    if (next instanceof Error) throw next;
    return next as TReply;
  }
}

const MAX_STALE_MS = 300;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const reply = (version: string, credits: number): ListModelsReply => ({ version, data: [{ id: 'm', credits } as ModelInfo] });

/**
 * The bound on a copy with no change notice at all (a gateway cut off from NATS and from the
 * database's LISTEN channel): real timers, a short CATALOGUE_MAX_STALE_MS.
 */
describe('ModelCatalogue without any change notice', () => {
  const catalogue = (rpc: RpcClient, broadcaster = new InProcessBroadcaster()) => {
    const c = new ModelCatalogue(rpc, broadcaster, { catalogueMaxStaleMs: MAX_STALE_MS } as GatewaySettings);
    c.onModuleInit();
    return c;
  };

  it('serves its copy within the bound; past it, the next request waits for a fresh read (the old copy is never served)', async () => {
    const rpc = new ScriptedCatalogue([reply('v1', 3), reply('v2', 5)]);
    const models = catalogue(rpc);
    expect((await models.current()).version).toBe('v1');
    expect((await models.current()).version).toBe('v1');
    expect(rpc.calls).toBe(1);
    await sleep(MAX_STALE_MS + 20);
    const after = await models.current();
    expect({ version: after.version, credits: after.models.get('m')?.credits, calls: rpc.calls }).toEqual({ version: 'v2', credits: 5, calls: 2 });
  });

  it('past the bound, while nothing answers: service_unavailable after the bounded retries, not the old copy', async () => {
    const rpc = new ScriptedCatalogue([reply('v1', 3)]);
    const models = catalogue(rpc);
    await models.current();
    await sleep(MAX_STALE_MS + 20);
    await expect(models.current()).rejects.toMatchObject({ code: 'service_unavailable', retryAfterSeconds: expect.any(Number) });
    expect(rpc.calls).toBe(1 + RPC_ATTEMPTS);
  });

  it('a notice drops the copy at once (the bound is only for notices that never come)', async () => {
    const broadcaster = new InProcessBroadcaster();
    const rpc = new ScriptedCatalogue([reply('v1', 3), reply('v2', 5)]);
    const models = catalogue(rpc, broadcaster);
    await models.current();
    await broadcaster.publishAndFlush(Broadcasts.catalogueChanged, {});
    expect((await models.current()).version).toBe('v2');
  });
});
