import { Broadcasts } from '@gen/contracts';
import { Broadcaster, NatsBroadcaster, NatsRpcClient } from '@gen/transport';
import { cliEnv, readCliNatsSettings } from './cli.settings';

/** The changes the running gateways must hear about at once: keys revoked or rewired, plans changed. */
const RELAYED_TOPICS = [Broadcasts.apiKeyChanged, Broadcasts.accountChanged];

/** How long the CLI waits for NATS to take its messages before it says it could not. */
const RELAY_TIMEOUT_MS = 5_000;

export interface BroadcastRelay {
  /** Waits until every relayed message has reached NATS; returns what went wrong, or null. */
  settle(): Promise<string | null>;
}

/**
 * The CLI changes keys and plans straight in the database, through the same services as the
 * gateway, whose in-process broadcasts reach only this process. With NATS configured (NATS_URL, and
 * NATS_SUBJECT_PREFIX as the deployment sets it), this forwards them to every gateway over NATS, so a
 * revoked key answers 401 at once everywhere. Without NATS (standalone, or NATS_URL unset), the
 * gateways' cache TTL makes the change seen within seconds instead (docs/guide/limits.md).
 */
export function relayBroadcastsToNats(env: NodeJS.ProcessEnv, local: Broadcaster): BroadcastRelay | null {
  if (!env.NATS_URL?.trim()) return null;
  const reader = cliEnv(env);
  const config = readCliNatsSettings(reader);
  reader.done();
  let nats: { rpc: NatsRpcClient; broadcaster: NatsBroadcaster } | undefined;
  const sends: Array<Promise<void>> = [];
  const unsubscribes = RELAYED_TOPICS.map((topic) =>
    local.subscribe(topic, (payload) => {
      if (!nats) {
        const rpc = new NatsRpcClient(config);
        nats = { rpc, broadcaster: new NatsBroadcaster(config, rpc) };
      }
      sends.push(nats.broadcaster.publishAndFlush(topic, payload));
    }),
  );
  return {
    async settle(): Promise<string | null> {
      for (const unsubscribe of unsubscribes) unsubscribe();
      if (!nats) return null;
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer from ${config.url} in ${RELAY_TIMEOUT_MS / 1000} s`)), RELAY_TIMEOUT_MS);
        });
        await Promise.race([Promise.all(sends), timeout]);
        return null;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      } finally {
        clearTimeout(timer);
        await nats.rpc.onApplicationShutdown().catch(() => undefined);
      }
    },
  };
}

/**
 * Sends one broadcast to every replica over NATS (when NATS_URL is set), e.g. after a catalogue
 * change; resolves with what went wrong, or null. The database announces the same change itself
 * (NOTIFY at the commit), so a deployment without NATS, or a standalone, hears of it all the same.
 */
export async function broadcastOverNats(env: NodeJS.ProcessEnv, topic: string, payload: unknown): Promise<string | null> {
  if (!env.NATS_URL?.trim()) return null;
  const reader = cliEnv(env);
  const config = readCliNatsSettings(reader);
  reader.done();
  const rpc = new NatsRpcClient(config);
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from ${config.url} in ${RELAY_TIMEOUT_MS / 1000} s`)), RELAY_TIMEOUT_MS);
    });
    await Promise.race([new NatsBroadcaster(config, rpc).publishAndFlush(topic, payload), timeout]);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    clearTimeout(timer);
    await rpc.onApplicationShutdown().catch(() => undefined);
  }
}
