import type { GenerationType, PlanName } from '@gen/contracts';

export const MODEL_STATUSES = ['active', 'disabled'] as const;
export type ModelStatus = (typeof MODEL_STATUSES)[number];

/**
 * One model of the catalogue: what it makes, what it costs, who may use it, which engine runs it.
 * Stored in `generation.models` and managed by operators (CLI `models ...`, docs/engines.md); the
 * binding is `{"engine": engine, ...params}` there.
 */
export interface ModelDefinition {
  id: string;
  name: string;
  type: GenerationType;
  credits: number;
  minimumCredits: number;
  synchronous: boolean;
  minPlan: PlanName;
  /** `disabled`: listed unavailable and refused at submit; jobs already accepted still run. */
  status: ModelStatus;
  /** The engine kind: a built-in one (`image`, `voice`...) or a provider adapter (`replicate`, `fal`...). */
  engine: string;
  /** The binding's settings for that kind (size, upstream model, `tokenEnv`...). Never a credential. */
  params: Record<string, unknown>;
}

/** A model as tests and embedders pass it to the module (upserted at start); enabled unless said. */
export type ModelDefinitionInput = Omit<ModelDefinition, 'status'> & { status?: ModelStatus };

/**
 * The seed catalogue: the models a new database starts with (migration
 * 1764300000000-generation-models inserts exactly these; a spec checks they agree). From then on
 * the catalogue is data: operators change it with the CLI, and this list changes nothing.
 */
export const CATALOGUE: readonly ModelDefinition[] = [
  {
    id: 'pixel-flux-1',
    name: 'Pixel Flux 1 (image, 512x512)',
    type: 'TEXT_TO_IMAGE',
    credits: 4,
    minimumCredits: 4,
    synchronous: true,
    minPlan: 'free',
    status: 'active',
    engine: 'image',
    params: { width: 512, height: 512, latencyMs: 150 },
  },
  {
    id: 'pixel-flux-1-hd',
    name: 'Pixel Flux 1 HD (image, 1024x1024)',
    type: 'TEXT_TO_IMAGE',
    credits: 12,
    minimumCredits: 12,
    synchronous: true,
    minPlan: 'pro',
    status: 'active',
    engine: 'image',
    params: { width: 1024, height: 1024, latencyMs: 400 },
  },
  {
    id: 'motion-lite-1',
    name: 'Motion Lite 1 (video, 3 s)',
    type: 'TEXT_TO_VIDEO',
    credits: 40,
    minimumCredits: 40,
    synchronous: false,
    minPlan: 'free',
    status: 'active',
    engine: 'video',
    params: { durationSeconds: 3, fps: 10, width: 160, height: 128, latencyMs: 3000 },
  },
  {
    id: 'tone-weaver-1',
    name: 'Tone Weaver 1 (audio, 4 s)',
    type: 'TEXT_TO_AUDIO',
    credits: 10,
    minimumCredits: 10,
    synchronous: false,
    minPlan: 'free',
    status: 'active',
    engine: 'audio',
    params: { durationSeconds: 4, sampleRate: 22050, latencyMs: 1000 },
  },
  {
    id: 'mesh-smith-1',
    name: 'Mesh Smith 1 (3D, GLB)',
    type: 'TEXT_TO_3D',
    credits: 25,
    minimumCredits: 25,
    synchronous: false,
    minPlan: 'lite',
    status: 'active',
    engine: 'mesh',
    params: { latencyMs: 1500 },
  },
  {
    id: 'voice-1',
    name: 'Voice 1 (speech from the prompt, espeak-ng)',
    type: 'TEXT_TO_AUDIO',
    credits: 3,
    minimumCredits: 3,
    synchronous: false,
    minPlan: 'free',
    status: 'active',
    engine: 'voice',
    params: {},
  },
];
