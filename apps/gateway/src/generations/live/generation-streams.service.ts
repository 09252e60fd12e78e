import { createHash } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { Broadcasts, GenerationChangedBroadcast, GenerationRecord } from '@gen/contracts';
import { RateLimitError } from '@gen/errors';
import { PeriodicTask } from '@gen/observability';
import { Broadcaster } from '@gen/transport';
import { GATEWAY_SETTINGS, GatewaySettings } from '../../settings/gateway.tokens';

/** Streams one account may hold open at once (beyond: 429). */
export const DEFAULT_STREAMS_PER_ACCOUNT = 20;
/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
export const HEARTBEAT_MS = 15_000;
/** The stream re-reads its job this often even without news: the safety net for a missed broadcast. */
const SAFETY_REREAD_MS = 30_000;
/** Queued jobs re-read their position at most this often when their account's other jobs move. */
const POSITION_DEBOUNCE_MS = 250;

const isFinal = (record: GenerationRecord) => record.status === 'completed' || record.status === 'failed';

/**
 * An event's id: a digest of the record it carries, so it means the same on every connection and
 * every gateway replica (a counter per connection would not survive a reconnect to another one).
 * A client that reconnects with Last-Event-ID is not sent that record again.
 */
export function streamEventId(recordJson: string): string {
  return createHash('sha256').update(recordJson).digest('base64url').slice(0, 22);
}

/** How a stream reaches its client. */
export interface StreamIo {
  read(): Promise<GenerationRecord>;
  send(record: GenerationRecord, eventId: string): void;
  /** Starts the response without an event (a reconnect whose last event is still current). */
  open(): void;
  /** Answers 204 instead of a stream (a reconnect that already has the final record). */
  noContent(): void;
  heartbeat(): void;
  end(): void;
}

/** One open stream: what it shows, and how to reach its client. */
interface Watcher {
  accountId: string;
  jobId: string;
  last: string;
  status?: GenerationRecord['status'];
  send(record: GenerationRecord): void;
  reread(): void;
  end(): void;
}

/**
 * The live status streams of this gateway (`GET /api/v1/generations/{id}/events`), fed by the
 * `generation.changed` broadcast that every generation replica sends (a job started, progressed or
 * finished): one subscription per gateway, fanned out to the streams watching that job, so no
 * stream polls the database. A queued job's position moves when its account's other jobs start or
 * finish: those news make its stream re-read the job (debounced).
 */
@Injectable()
export class GenerationStreams implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(GenerationStreams.name);
  private readonly byJob = new Map<string, Set<Watcher>>();
  private readonly byAccount = new Map<string, Set<Watcher>>();
  private unsubscribe?: () => void;

  constructor(
    private readonly broadcaster: Broadcaster,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  onApplicationBootstrap(): void {
    this.unsubscribe = this.broadcaster.subscribe(Broadcasts.generationChanged, (payload) => this.changed(payload as GenerationChangedBroadcast));
  }

  /** Shutdown: every stream ends now (clients reconnect to another replica), so the server can close. */
  beforeApplicationShutdown(): void {
    this.unsubscribe?.();
    for (const watchers of this.byJob.values()) for (const watcher of [...watchers]) watcher.end();
  }

  /** Streams open for an account now. */
  openFor(accountId: string): number {
    return this.byAccount.get(accountId)?.size ?? 0;
  }

  /**
   * Starts watching a job for a client: `read` fetches the record (first at once, then when news
   * calls for it); `send` writes an event; `end` closes the response. Returns the stop function.
   * Refuses (429) an account already at its limit of open streams. `lastEventId` (a reconnect's
   * Last-Event-ID) is the event the client already has: when the record is still that one it is
   * not sent again (a final one: 204, nothing more will come).
   */
  async watch(accountId: string, jobId: string, io: StreamIo, lastEventId?: string): Promise<() => void> {
    const limit = this.settings.streamsPerAccount ?? DEFAULT_STREAMS_PER_ACCOUNT;
    if (this.openFor(accountId) >= limit) {
      throw new RateLimitError(`At most ${limit} live status streams may be open per account; close one and retry.`, 5);
    }
    let stopped = false;
    let rereadTimer: NodeJS.Timeout | undefined;
    const watcher: Watcher = {
      accountId,
      jobId,
      last: '',
      send: (record) => {
        if (stopped) return;
        const text = JSON.stringify(record);
        if (text === watcher.last) return;
        watcher.last = text;
        watcher.status = record.status;
        io.send(record, streamEventId(text));
        if (isFinal(record)) stop();
      },
      reread: () => {
        if (stopped || rereadTimer) return;
        rereadTimer = setTimeout(() => {
          rereadTimer = undefined;
          io.read().then(watcher.send, (error: unknown) => this.logger.warn({ err: error, jobId }, 'Re-reading a streamed job failed'));
        }, POSITION_DEBOUNCE_MS);
      },
      end: () => stop(),
    };
    const heartbeat = new PeriodicTask({ name: 'Live stream heartbeat', intervalMs: this.settings.streamHeartbeatMs ?? HEARTBEAT_MS, run: () => io.heartbeat() });
    const safety = new PeriodicTask({ name: 'Live stream re-read', intervalMs: SAFETY_REREAD_MS, run: () => watcher.reread() });
    heartbeat.start();
    safety.start();
    const stop = () => {
      if (stopped) return;
      stopped = true;
      void heartbeat.stop();
      void safety.stop();
      clearTimeout(rereadTimer);
      remove(this.byJob, jobId, watcher);
      remove(this.byAccount, accountId, watcher);
      io.end();
    };
    // Listen before reading, so a change between the read and the subscription is not lost.
    add(this.byJob, jobId, watcher);
    add(this.byAccount, accountId, watcher);
    try {
      const first = await io.read();
      const text = JSON.stringify(first);
      if (lastEventId !== undefined && lastEventId === streamEventId(text)) {
        watcher.last = text;
        watcher.status = first.status;
        if (isFinal(first)) {
          io.noContent();
          stop();
        } else io.open();
      } else watcher.send(first);
    } catch (error) {
      stop();
      throw error;
    }
    return stop;
  }

  private changed({ accountId, record }: GenerationChangedBroadcast): void {
    for (const watcher of this.byJob.get(record.id) ?? []) {
      // A processing broadcast never undoes a final state a stream already showed.
      watcher.send(record);
    }
    // Another job of the account started or finished: queued jobs' positions moved.
    for (const watcher of this.byAccount.get(accountId) ?? []) {
      if (watcher.jobId !== record.id && watcher.status === 'queued') watcher.reread();
    }
  }
}

function add(map: Map<string, Set<Watcher>>, key: string, watcher: Watcher): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(watcher);
}

function remove(map: Map<string, Set<Watcher>>, key: string, watcher: Watcher): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(watcher);
  if (set.size === 0) map.delete(key);
}
