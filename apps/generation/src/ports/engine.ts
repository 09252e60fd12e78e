import type { OutputExtension } from '@gen/storage';
import type { GenerationType } from '@gen/contracts';
import type { CallbackVerifier } from './callback-verifier';

/** How to serve one asset an engine produced. */
interface EngineOutputInfo {
  contentType: string;
  /** File extension without the dot (`png`, `mp4`, `wav`, `glb`): one the storage knows. */
  extension: OutputExtension;
  /** Pixels, where the engine or the file says (images, videos). */
  width?: number;
  height?: number;
  /** Seconds, where the engine or the file says (videos, audio). */
  durationS?: number;
}

/** An asset held in memory: the job runner stores it. */
export interface BufferedOutput extends EngineOutputInfo {
  data: Buffer;
  stored?: undefined;
}

/**
 * An asset the engine already streamed into the storage (a provider's download): the runner takes
 * the object as is, and deletes it if the job cannot keep it.
 */
export interface StoredOutput extends EngineOutputInfo {
  stored: { key: string; bytes: number };
  data?: undefined;
}

/** One asset an engine produced: its bytes, or the object they were streamed into, and how to serve them. */
export type EngineOutput = BufferedOutput | StoredOutput;

export interface EngineRequest {
  jobId: string;
  modelId: string;
  type: GenerationType;
  prompt: string;
  /**
   * The customer's `input` as applied at submit: validated against the model's `inputs` schema, its
   * defaults filled in (`{}` when the model declares none or the customer gave none). Provider
   * adapters lay it over the binding's static `input` (through its `inputMap`).
   */
  input: Readonly<Record<string, unknown>>;
  /** Deterministic seed: the same prompt and seed give the same bytes. */
  seed: number;
  /** Engine-specific settings from the catalogue (size, duration, latency, upstream...). */
  params: Record<string, unknown>;
  /** Aborted when the job's lease is lost, the process shuts down or the engine timeout passes. */
  signal: AbortSignal;
  /**
   * The upstream job an earlier attempt of this job submitted (stored by `saveUpstreamRef`), or null.
   * A provider adapter that finds one attaches to it (polls it) instead of submitting again: none
   * of the providers takes an idempotency key, so this is what keeps a retried job from paying twice.
   */
  upstreamRef: string | null;
  /**
   * Stores the upstream's job reference on our job, durably; adapters call it as soon as the
   * upstream's submit answers, before waiting on it. Rejects (with the abort reason) when this
   * worker no longer owns the job.
   */
  saveUpstreamRef(ref: string): Promise<void>;
  /** Progress from 0 to 1, where the engine or its provider knows it (cheap: kept in memory, saved now and then). */
  reportProgress?(fraction: number): void;
  /**
   * Where the provider may call back when the upstream job ends (`ProviderCallbacks.urlFor`), sent
   * with the submit by adapters whose binding has `"callbacks": true`; absent or null: polling only.
   */
  callbackUrl?: string | null;
  /**
   * The upstream job's deadline (epoch ms) when it is already fixed: a parked job's, stored on it when
   * it was submitted (the binding's total timeout counts from the submit, not from each phase).
   */
  deadlineAt?: number;
  /** Told when the provider answered `429` (its `Retry-After` in ms, if any): the whole binding slows down. */
  reportThrottled?(retryAfterMs: number | null): void;
}

/** What a provider says of a job still pending, where it says it: its progress (0 to 1), its place in the provider's queue. */
export interface UpstreamPending {
  progress?: number;
  queuePosition?: number;
}

/** What a read of an upstream job found: still running (with its progress and queue position, if known), or ended. */
export type UpstreamCheck = ({ ended: false } & UpstreamPending) | { ended: true; state: unknown };

/**
 * An engine whose work is waiting on a provider, in phases (docs/design/jobs.md, "Waiting upstream"), so
 * that the wait holds no worker: `start` submits (and stores the reference through
 * `saveUpstreamRef`) or attaches to `upstreamRef`; `check` reads the upstream state once, without
 * retries (a failure that may pass throws `UpstreamNotNow` and the job is checked again later); `collect`
 * fetches the output of a job that ended, or throws the failure it ended with. Failures are
 * `EngineError`s with sanitised messages, as with `generate`.
 */
export interface UpstreamPhases {
  /**
   * The provider account the limits below belong to (docs/design/jobs.md, "Binding limits"): the kind, the
   * credential's variable and the API's base URL (`replicate:REPLICATE_API_TOKEN@https://api.replicate.com`).
   * Models whose bindings share all three share one account's `maxInFlight`, rate and backoff.
   */
  readonly binding: string;
  /** The binding's whole-generation timeout, counted from the submit. */
  readonly totalTimeoutMs: number;
  /** At most this many upstream jobs of the binding at once, over every replica (null: no limit). */
  readonly maxInFlight: number | null;
  /** At most this many calls to the provider per second for the binding, over every replica (null: no limit). */
  readonly maxRequestsPerSecond: number | null;
  start(request: EngineRequest): Promise<UpstreamCheck>;
  check(request: EngineRequest): Promise<UpstreamCheck>;
  collect(request: EngineRequest, ended: UpstreamCheck & { ended: true }): ReturnType<Engine['generate']>;
  /**
   * How long to wait before the next check, after `checks` checks: soon at first, then slower; with
   * `callbackExpected` (the submit gave the provider a callback URL) the slow fallback cadence.
   */
  nextCheckMs(checks: number, callbackExpected?: boolean): number;
}

/** A check that could not be made now (provider unreachable, `429`, `503`): check again after `retryAfterMs` or a backoff. */
export class UpstreamNotNow extends Error {
  constructor(
    readonly retryAfterMs: number | null,
    /** The provider answered `429`: its limit is the binding's, not this job's. */
    readonly throttled: boolean,
    options?: { cause?: unknown },
  ) {
    super('upstream not reachable now', options);
    this.name = 'UpstreamNotNow';
  }
}

/**
 * Turns (model, prompt, input) into one or more assets (several where the provider returns several:
 * `num_outputs`, `n`); the first is the record's `output_url`. Failures the user should see are thrown as EngineError
 * with a sanitised message; anything else becomes a generic failure message.
 */
export interface Engine {
  readonly name: string;
  generate(request: EngineRequest): Promise<EngineOutput[]>;
  /**
   * True for provider adapters: the engine's work is I/O with a provider, so its jobs take the
   * provider pool (PROVIDER_CONCURRENCY) instead of the CPU workers (WORKER_CONCURRENCY).
   */
  readonly waitsUpstream?: boolean;
  /** Present when the engine's upstream wait can be parked (submit, check, collect). */
  readonly phases?: UpstreamPhases;
  /** Releases what the engine holds (connection pools); called when it is replaced and at shutdown. */
  dispose?(): Promise<void>;
  /**
   * Why the engine cannot run here (a program or a credential missing), in words for the API's
   * users and operators; null or absent when it can. Checked when the catalogue is read, so such a
   * model is listed `available: false` and refused at submit instead of failing jobs.
   */
  unavailableReason?(): string | null;
  /**
   * Asks the upstream to stop the job a reference names (one `saveUpstreamRef` stored), for a job we
   * no longer want (a user's cancel or a Cancel-After deadline). Best effort: resolves true when the upstream acknowledged,
   * false otherwise, and never rejects. Absent for engines with nothing upstream to stop.
   */
  cancel?(upstreamRef: string): Promise<boolean>;
  /** Checks the provider's callbacks about this engine's upstream jobs (docs/operations/providers.md, "Callbacks"); absent where it has none. */
  readonly callbacks?: CallbackVerifier;
}

export class EngineError extends Error {
  constructor(
    /** User-facing, already sanitised: no hostnames, stack traces or secrets. */
    readonly userMessage: string,
    options?: { cause?: unknown },
  ) {
    super(userMessage, options);
    this.name = 'EngineError';
  }
}
