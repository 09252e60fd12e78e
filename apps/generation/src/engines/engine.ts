import type { GenerationType } from '@gen/contracts';

/** What an engine produced: the asset's bytes and how to serve them. */
export interface EngineOutput {
  data: Buffer;
  contentType: string;
  /** File extension without the dot (`png`, `mp4`, `wav`, `glb`). */
  extension: string;
}

export interface EngineRequest {
  jobId: string;
  modelId: string;
  type: GenerationType;
  prompt: string;
  /** Deterministic seed: the same prompt and seed give the same bytes. */
  seed: number;
  /** Engine-specific settings from the catalogue (size, duration, latency, upstream...). */
  params: Record<string, unknown>;
  /** Aborted when the job's lease is lost or the process shuts down. */
  signal: AbortSignal;
}

/**
 * Turns (model, prompt) into an asset. Failures the user should see are thrown as EngineError
 * with a sanitised message; anything else becomes a generic failure message.
 */
export interface Engine {
  readonly name: string;
  generate(request: EngineRequest): Promise<EngineOutput>;
  /** Releases what the engine holds (connection pools); called once at shutdown. */
  dispose?(): Promise<void>;
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
