import { builtInEngineKinds } from './built-in-kinds';

const kinds = new Map(builtInEngineKinds().map((kind) => [kind.kind, kind]));
const problems = (kind: string, settings: Record<string, unknown>) => {
  const found: string[] = [];
  kinds.get(kind)?.validate(settings, 'engine', found);
  return found;
};

describe('built-in engine settings', () => {
  it('take each known setting within its range, integers where they must be', () => {
    expect(problems('video', { width: 320, durationSeconds: 2.5, fps: 24 })).toEqual([]);
    expect(problems('video', { durationSeconds: 31, fps: 2.5, width: null })).toEqual([
      'engine.width must be an integer between 32 and 640',
      'engine.durationSeconds must be a number between 0.5 and 30',
      'engine.fps must be an integer between 1 and 30',
    ]);
  });

  it('refuse unknown settings, naming the known ones or saying there are none', () => {
    expect(problems('mesh', { depth: 3 })).toEqual(['engine.depth is not a setting of this engine (known: latencyMs)']);
    expect(problems('instant', {})).toEqual([]);
    expect(problems('instant', { latencyMs: 5 })).toEqual(['engine.latencyMs is not a setting of this engine (it takes none)']);
  });
});
