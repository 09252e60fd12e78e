import { randomBytes } from 'node:crypto';
import { type AssetName, dataUri, LEAK } from './fake-provider';

/** What the fake does with a prediction: the model name (`fake/<scenario>`) chooses it. */
export type ReplicateScenario =
  /** starting -> processing -> succeeded; output a list of PNG URLs, `input.num_outputs` of them (default 1), like flux-schnell. */
  | 'ok'
  /** Output a single URL string. */
  | 'ok-string'
  /** Output a data URI (what sync mode answers). */
  | 'ok-data-uri'
  /** Output a JPEG URL. */
  | 'ok-jpeg'
  | 'ok-video'
  | 'ok-audio'
  | 'ok-3d'
  /** Output `{"image": <url>, "seed": 1}`: only found with outputPath. */
  | 'object-output'
  /** The prediction fails, with a leaky error text. */
  | 'fails'
  /** The prediction is canceled upstream. */
  | 'canceled-upstream'
  /** Aborted: its deadline passed before it started. */
  | 'aborted'
  /** Processing for ever (until cancelled). */
  | 'never-finishes'
  /** Processing until the test calls `release()`. */
  | 'held'
  /** The first create answers 429 with `Retry-After: 1`, the next is accepted. */
  | 'create-429'
  /** Create answers 429 with `Retry-After: 3600`. */
  | 'create-429-long'
  /** Create answers 500 (and may or may not have created it). */
  | 'create-500'
  /** Create never answers. */
  | 'create-hang'
  /** Create answers 201 with an HTML page. */
  | 'create-html'
  /** Create answers a prediction without an id. */
  | 'create-no-id'
  /** The first poll answers only after `slowMs`. */
  | 'poll-slow'
  /** The first poll answers 503. */
  | 'poll-503-once'
  /** Every poll answers 503. */
  | 'poll-503'
  /** A status outside the documented ones. */
  | 'unknown-status'
  /** Succeeded, output null. */
  | 'no-output'
  /** Succeeded, output removed (`data_removed`, an hour later). */
  | 'removed'
  /** Succeeded, the output URL answers 404. */
  | 'output-404'
  /** Succeeded, the output is an HTML page served as image/png. */
  | 'output-html';

/** A prediction as the fake keeps it. */
export interface Prediction {
  id: string;
  scenario: ReplicateScenario;
  model: string;
  version: string;
  input: Record<string, unknown>;
  status: string;
  output: unknown;
  error: string | null;
  polls: number;
  created_at: string;
  data_removed: boolean;
  /** poll-503-once / poll-slow: the first poll has had its trouble. */
  failedOnce?: boolean;
  webhook?: string;
  webhookEvents?: string[];
}

/**
 * A running prediction's logs as a model prints them: a tqdm progress bar per poll so far (20% more
 * each, at most 80%), which is where Replicate's API says how far a prediction is.
 */
export function logsOf(p: Prediction): string {
  if (p.status !== 'processing') return '';
  const lines = ['Using seed: 1'];
  for (let i = 1; i <= Math.min(4, p.polls); i++) lines.push(`${String(i * 20).padStart(3)}%|${'#'.repeat(i * 2).padEnd(10)}| ${i}/5 [00:0${i}<00:0${5 - i}, 1.00it/s]`);
  return `${lines.join('\n')}\n`;
}

/** Replicate's ids look like `gm3qorzdhgbfurvjtvhg6dckhu`: 26 lower-case base32 characters. */
export function predictionId(): string {
  return [...randomBytes(26)].map((b) => 'abcdefghijklmnopqrstuvwxyz234567'[b & 31]).join('');
}

const assetOf = (scenario: ReplicateScenario): AssetName =>
  scenario === 'ok-video' ? 'mp4' : scenario === 'ok-audio' ? 'wav' : scenario === 'ok-3d' ? 'glb' : scenario === 'ok-jpeg' ? 'jpeg' : 'png';

/** Ends the prediction as its scenario says (its outputs served from `cdnUrl`). */
export function settlePrediction(p: Prediction, cdnUrl: string): void {
  const file = (name: string) => `${cdnUrl}/files/${name}.${assetOf(p.scenario)}`;
  switch (p.scenario) {
    case 'fails':
      p.status = 'failed';
      p.error = `CUDA out of memory ${LEAK}`;
      return;
    case 'canceled-upstream':
      p.status = 'canceled';
      return;
    case 'aborted':
      p.status = 'aborted';
      return;
    case 'unknown-status':
      p.status = 'exploded';
      return;
    case 'no-output':
      p.status = 'succeeded';
      p.output = null;
      return;
    case 'removed':
      p.status = 'succeeded';
      p.output = null;
      p.data_removed = true;
      return;
    case 'ok-string':
      p.status = 'succeeded';
      p.output = file(p.id);
      return;
    case 'ok-data-uri':
      p.status = 'succeeded';
      p.output = dataUri('png');
      return;
    case 'object-output':
      p.status = 'succeeded';
      p.output = { image: file(p.id), seed: 1 };
      return;
    case 'output-404':
      p.status = 'succeeded';
      p.output = [file('missing')];
      return;
    case 'output-html':
      p.status = 'succeeded';
      p.output = [file('html')];
      return;
    default: {
      p.status = 'succeeded';
      const count = typeof p.input.num_outputs === 'number' ? p.input.num_outputs : 1;
      p.output = Array.from({ length: count }, (_, i) => file(i === 0 ? p.id : `${p.id}-${i}`));
    }
  }
}

/** The prediction object as the API answers it (`apiUrl`: the fake's base URL). */
export function predictionView(p: Prediction, apiUrl: string) {
  return {
    id: p.id,
    model: p.model,
    version: p.version,
    input: p.input,
    logs: logsOf(p),
    output: p.output,
    data_removed: p.data_removed,
    error: p.error,
    status: p.status,
    created_at: p.created_at,
    urls: {
      web: `https://replicate.com/p/${p.id}`,
      get: `${apiUrl}/v1/predictions/${p.id}`,
      cancel: `${apiUrl}/v1/predictions/${p.id}/cancel`,
    },
  };
}

/** The predictions made, in order, and how many run at once. */
export class PredictionStore {
  readonly ordered: Prediction[] = [];
  private readonly byId = new Map<string, Prediction>();
  private readonly running = new Set<string>();
  inFlight = 0;
  peakInFlight = 0;

  add(p: Prediction): void {
    this.byId.set(p.id, p);
    this.ordered.push(p);
    this.running.add(p.id);
    this.peakInFlight = Math.max(this.peakInFlight, ++this.inFlight);
  }

  get(id: string): Prediction | undefined {
    return this.byId.get(id);
  }

  /** The prediction is no longer running (ended, canceled): it leaves the in-flight count. */
  ended(p: Prediction): void {
    if (this.running.delete(p.id)) this.inFlight--;
  }
}
