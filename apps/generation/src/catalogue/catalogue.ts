import type { GenerationType, PlanName } from '@gen/contracts';

/** One model of the catalogue: what it makes, what it costs, who may use it, which engine runs it. */
export interface ModelDefinition {
  id: string;
  name: string;
  type: GenerationType;
  credits: number;
  minimumCredits: number;
  synchronous: boolean;
  minPlan: PlanName;
  /** Key into the engine registry ('image', 'video', 'audio', 'mesh', or a configured remote engine). */
  engine: string;
  params: Record<string, unknown>;
}

/**
 * The reviewed catalogue: the single place where models, prices and plan gating are defined.
 * Loaded at start (not seeded into the database), so a change ships with the code that serves it.
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
    engine: 'mesh',
    params: { latencyMs: 1500 },
  },
];
