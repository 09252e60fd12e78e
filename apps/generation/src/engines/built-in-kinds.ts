import { IfGiven, Rule, validateShape } from '@gen/contracts';
import { DEMO_PROVIDER, EngineKind } from '../ports/engine-kind';
import { AudioEngine } from './audio.engine';
import type { Engine } from '../ports/engine';
import { ImageEngine } from './image.engine';
import { InstantEngine } from './instant.engine';
import { MeshEngine } from './mesh.engine';
import { VideoEngine } from './video.engine';
import { VoiceEngine } from './voice.engine';

type Range = { min: number; max: number; integer?: boolean };

const LATENCY: Range = { min: 0, max: 600_000, integer: true };

/** The settings each built-in engine reads (engine-params clamps to the same ranges). */
const SETTINGS: Record<string, Record<string, Range>> = {
  image: { width: { min: 64, max: 2048, integer: true }, height: { min: 64, max: 2048, integer: true }, latencyMs: LATENCY },
  video: {
    width: { min: 32, max: 640, integer: true },
    height: { min: 32, max: 480, integer: true },
    durationSeconds: { min: 0.5, max: 30 },
    fps: { min: 1, max: 30, integer: true },
    latencyMs: LATENCY,
  },
  audio: { sampleRate: { min: 8000, max: 48000, integer: true }, durationSeconds: { min: 0.1, max: 60 }, latencyMs: LATENCY },
  mesh: { latencyMs: LATENCY },
  instant: {},
  voice: { wordsPerMinute: { min: 80, max: 450, integer: true }, latencyMs: LATENCY },
};

/**
 * The check of a built-in engine's settings: a class with each known setting, a number in its range
 * when given (validated by `validateShape`); unknown settings are refused. Built once per kind.
 */
export function numericSettingsCheck(known: Record<string, Range>): (settings: Record<string, unknown>, where: string, problems: string[]) => void {
  class EngineSettingsDto {}
  for (const [key, range] of Object.entries(known)) {
    const inRange = (value: unknown) =>
      typeof value === 'number' && Number.isFinite(value) && value >= range.min && value <= range.max && (!range.integer || Number.isInteger(value));
    Rule('range', inRange, `must be ${range.integer ? 'an integer' : 'a number'} between ${range.min} and ${range.max}`)(EngineSettingsDto.prototype, key);
    IfGiven()(EngineSettingsDto.prototype, key);
  }
  const names = Object.keys(known);
  const unknownMessage = () => `is not a setting of this engine${names.length ? ` (known: ${names.join(', ')})` : ' (it takes none)'}`;
  return (settings, where, problems) => {
    const result = validateShape(EngineSettingsDto, settings, { path: where, unknown: 'forbid', unknownMessage });
    if (!result.ok) problems.push(...result.problems);
  };
}

/**
 * A kind whose engine is one shared instance; the model's settings travel with each request (`params`).
 * `provider`: `demo` for the built-in engines; `custom` for an embedder's (or a test's) own engine.
 */
export function sharedEngineKind(engine: Engine, known?: Record<string, Range>, provider = 'custom'): EngineKind {
  const check = known && numericSettingsCheck(known);
  return {
    kind: engine.name,
    provider,
    validate: (settings, where, problems) => check?.(settings, where, problems),
    create: () => engine,
  };
}

/** The offline engines: `image`, `video`, `audio`, `mesh`, `instant` and `voice` (espeak-ng). */
export function builtInEngineKinds(options: { espeakPath?: string } = {}): EngineKind[] {
  const engines: Engine[] = [
    new ImageEngine(),
    new VideoEngine(),
    new AudioEngine(),
    new MeshEngine(),
    new InstantEngine(),
    new VoiceEngine(options.espeakPath),
  ];
  return engines.map((engine) => sharedEngineKind(engine, SETTINGS[engine.name], DEMO_PROVIDER));
}
