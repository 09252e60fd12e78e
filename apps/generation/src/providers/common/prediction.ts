import type { EngineOutput, UpstreamPending } from '../../ports/engine';
import { isRecord } from '../../ports/engine-kind';
import type { BindingSettings } from './binding-settings';
import { stringsAt, valueAt } from './result-path';
import type { UpstreamJob } from './upstream-client';
import { SubmitAndPollEngine } from './upstream-engine';
import { UpstreamFailure } from './upstream-failure';

/**
 * A prediction as Replicate's API and Cog's HTTP server both answer it (Cog is Replicate's container
 * format): `{"id", "status", "output", "error"}`.
 */
export type Prediction = Record<string, unknown>;

const PENDING = new Set(['starting', 'processing']);
/** `canceled` (by its creator, or its deadline while running) and `aborted` (Replicate: its deadline before it started). */
const ENDED = new Set(['failed', 'canceled', 'aborted']);

export function predictionPending(prediction: Prediction): boolean {
  return PENDING.has(statusOf(prediction));
}

/**
 * The outputs of a prediction that ended (URLs or data URIs: `output` itself, every string of it when
 * it is a list, or the value at `outputPath` in it, likewise), or the failure it ended with.
 */
export function predictionOutputs(prediction: Prediction, id: string, outputPath: string[] | null): string[] {
  const status = statusOf(prediction);
  if (ENDED.has(status)) {
    const error = typeof prediction.error === 'string' ? prediction.error.slice(0, 300) : '';
    throw new UpstreamFailure('generation_failed', `prediction ${id} ${status}${error ? `: ${error}` : ''}`);
  }
  if (status !== 'succeeded') throw new UpstreamFailure('malformed', `prediction ${id}: unknown status ${JSON.stringify(prediction.status)?.slice(0, 40)}`);
  const all = stringsAt(prediction.output, outputPath ?? []);
  if (all.length > 0) return all;
  const output = outputPath ? valueAt(prediction.output, outputPath) : prediction.output;
  // Replicate removes inputs and outputs of API predictions after an hour (`data_removed`).
  if (prediction.data_removed === true) throw new UpstreamFailure('output_unavailable', `prediction ${id}: output removed upstream`);
  const shape = isRecord(output) ? `an object (${Object.keys(output).slice(0, 5).join(', ')}): set outputPath` : typeof output;
  throw new UpstreamFailure('malformed', `prediction ${id} succeeded without an output (output is ${shape})`);
}

/** The last percentage of a progress bar (`45%|████▌     | 9/20`, what tqdm prints) near the end of the logs. */
const PERCENT = /(\d{1,3})%\|/g;

/**
 * A running prediction's progress, read from its `logs` (Replicate's models print tqdm progress bars
 * there: the last one in the log is where it stands); none when the logs show no bar.
 */
export function predictionProgress(prediction: Prediction): number | undefined {
  if (typeof prediction.logs !== 'string' || prediction.logs === '') return undefined;
  let last: number | undefined;
  for (const match of prediction.logs.slice(-2_000).matchAll(PERCENT)) last = Number(match[1]);
  return last !== undefined && last <= 100 ? last / 100 : undefined;
}

function statusOf(prediction: Prediction): string {
  return typeof prediction.status === 'string' ? prediction.status : '';
}

/**
 * The parts Replicate and Cog share: the reference is the prediction's id, a prediction is pending
 * while `starting` or `processing`, and an ended one yields its output or its failure.
 */
export abstract class PredictionEngine<S extends BindingSettings> extends SubmitAndPollEngine<S, string, Prediction> {
  protected storeRef(id: string): string {
    return id;
  }

  protected loadRef(stored: string): string {
    return stored;
  }

  protected isPending(prediction: Prediction): boolean {
    return predictionPending(prediction);
  }

  protected override pendingDetail(prediction: Prediction): UpstreamPending {
    const progress = predictionProgress(prediction);
    return progress === undefined ? {} : { progress };
  }

  protected finish(id: string, prediction: Prediction, job: UpstreamJob): Promise<EngineOutput[]> {
    return job.fetchOutputs(predictionOutputs(prediction, id, this.settings.outputPath));
  }
}
