import { randomUUID } from 'node:crypto';
import type { GenerationType } from '@gen/contracts';
import { ASSETS, LEAK, sanitisationProblems } from '@gen/testing';
import type { Engine } from '../../ports/engine';
import { EngineError, EngineRequest } from '../../ports/engine';

// What the provider adapters' specs share (the fake providers themselves are in @gen/testing). A
// `test/` folder: left out of the build (tsconfig.build.json) and linted as test code.

/** An engine request as the job runner makes it, recording what the engine stores as its upstream reference. */
export function engineRequest(
  options: {
    type?: GenerationType;
    prompt?: string;
    /** The customer's input as applied (default `{}`). */
    input?: Record<string, unknown>;
    signal?: AbortSignal;
    upstreamRef?: string | null;
    /** What `saveUpstreamRef` does (default: records and resolves). */
    save?: (ref: string) => Promise<void>;
  } = {},
): EngineRequest & { saved: Array<{ ref: string; at: number }> } {
  const saved: Array<{ ref: string; at: number }> = [];
  return {
    jobId: randomUUID(),
    modelId: 'provider-model-1',
    type: options.type ?? 'TEXT_TO_IMAGE',
    prompt: options.prompt ?? 'a red kite',
    input: options.input ?? {},
    seed: 7,
    // What the runner passes: the binding's own settings and the simulated latency; none of it goes upstream.
    params: { tokenEnv: 'NOT_SENT', latencyMs: 0 },
    signal: options.signal ?? new AbortController().signal,
    upstreamRef: options.upstreamRef ?? null,
    saved,
    saveUpstreamRef: (ref) => {
      saved.push({ ref, at: Date.now() });
      return options.save ? options.save(ref) : Promise.resolve();
    },
  };
}

/** A rejected generation's EngineError, checked: one of our fixed messages, nothing of the upstream in it. */
export async function engineFailure(promise: Promise<unknown>, upstream: { url: string; secret: string }): Promise<EngineError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the generation to fail');
    },
    (e: unknown) => e,
  );
  if (!(error instanceof EngineError)) throw new Error(`expected an EngineError, got ${String(error)}`);
  const problems = sanitisationProblems(error.userMessage, { ...upstream, leak: LEAK });
  if (problems.length) throw new Error(`unsanitised message ${JSON.stringify(error.userMessage)}: ${problems.join(', ')}`);
  return error;
}

/** One output shape a fake provider can answer: its scenario, the job's type, the asset expected, binding overrides. */
export type OutputShapeCase<S extends string> = [scenario: S, type: GenerationType, asset: keyof typeof ASSETS, overrides: Record<string, unknown>];

/**
 * A test per case: the engine bound to the fake's scenario returns exactly the asset's bytes.
 * `also` adds a provider's own check to a case (e.g. no CDN download for a data URI).
 */
export function itReturnsEveryOutputShape<S extends string>(
  scenario: (name: S, overrides: Record<string, unknown>) => Engine,
  cases: Array<OutputShapeCase<S>>,
  also: (name: S) => void = () => undefined,
): void {
  describe('every output shape', () => {
    it.each<OutputShapeCase<S>>(cases)('%s (%s)', async (name, type, asset, overrides) => {
      const [output] = await scenario(name, overrides).generate(engineRequest({ type }));
      expect(output.data?.equals(ASSETS[asset])).toBe(true);
      also(name);
    });
  });
}
