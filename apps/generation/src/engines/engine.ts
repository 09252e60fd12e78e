import type { OutputExtension } from '@gen/storage';
import type { GenerationType } from '@gen/contracts';

/** One asset an engine produced: its bytes and how to serve them. */
export interface EngineOutput {
  data: Buffer;
  contentType: string;
  /** File extension without the dot (`png`, `mp4`, `wav`, `glb`): one the storage knows. */
  extension: OutputExtension;
  /** Pixels, where the engine or the file says (images, videos). */
  width?: number;
  height?: number;
  /** Seconds, where the engine or the file says (videos, audio). */
  durationS?: number;
}

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
}

/**
 * Turns (model, prompt, input) into one or more assets (several where the provider returns several:
 * `num_outputs`, `n`); the first is the record's `output_url`. Failures the user should see are thrown as EngineError
 * with a sanitised message; anything else becomes a generic failure message.
 */
export interface Engine {
  readonly name: string;
  generate(request: EngineRequest): Promise<EngineOutput[]>;
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
