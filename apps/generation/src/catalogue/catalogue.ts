import type { GenerationType, OpenAiImagesMapping, PlanName } from '@gen/contracts';
import { InputsSchema, NO_INPUTS } from '@gen/model-inputs';

export const MODEL_STATUSES = ['active', 'disabled'] as const;
export type ModelStatus = (typeof MODEL_STATUSES)[number];

/**
 * One model of the catalogue: what it makes, what it costs, who may use it, which engine runs it.
 * Stored in `generation.models` and managed by operators (CLI `models ...`, docs/operations/providers.md); the
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
  /** Who serves it: `replicate`, `fal`, `openai`...; `demo` for the built-in engines (not AI models). */
  provider: string;
  /** What it makes and how, for customers ('' when none). */
  description: string;
  /** The engine kind: a built-in one (`image`, `voice`...) or a provider adapter (`replicate`, `fal`...). */
  engine: string;
  /** The binding's settings for that kind (size, upstream model, `tokenEnv`...). Never a credential. */
  params: Record<string, unknown>;
  /** The inputs a customer may give (`input` of POST /generate); absent: none (`inputsOf`). */
  inputs?: InputsSchema;
  /** Numeric inputs the price is multiplied by (`credits` × each, rounded up); absent: none. */
  priceMultipliers?: string[];
  /** How the OpenAI-compatible images route maps its fields to the inputs; absent: not served there. */
  openai?: OpenAiImagesMapping;
  /** The price of a batch line (1 to `credits`, a discount; docs/design/batches.md); absent: `credits`. */
  batchCredits?: number;
}

/** The model's inputs schema: its own, or the empty one (no inputs). */
export function inputsOf(model: Pick<ModelDefinition, 'inputs'>): InputsSchema {
  return model.inputs ?? NO_INPUTS;
}

/** A model as tests and embedders pass it to the module (upserted at start); enabled unless said. */
export type ModelDefinitionInput = Omit<ModelDefinition, 'status' | 'provider' | 'description'> & {
  status?: ModelStatus;
  /** Defaults to the engine kind's provider (`demo` for a built-in engine). */
  provider?: string;
  description?: string;
};

/**
 * The seed catalogue: the models a new database starts with (migration
 * 1764300000000-generation-models inserts them, 1764880000000-generation-model-labels labels them
 * as demos; a spec checks the result equals this list). They are built-in demo engines, not AI
 * models: their names say so, and their provider is `demo`. From then on the catalogue is data:
 * operators change it with the CLI, and this list changes nothing.
 */
export const CATALOGUE: readonly ModelDefinition[] = [
  {
    id: 'pixel-flux-1',
    name: 'Demo: procedural shapes, 512x512 (not an AI model)',
    type: 'TEXT_TO_IMAGE',
    credits: 4,
    minimumCredits: 4,
    synchronous: true,
    minPlan: 'free',
    status: 'active',
    provider: 'demo',
    description:
      "Built-in demo engine, not an AI model: a PNG of coloured shapes on a gradient, picked from the prompt and seed (the same prompt gives the same picture; it does not show what the prompt says). For trying the API offline.",
    engine: 'image',
    params: { width: 512, height: 512, latencyMs: 150 },
    // Migration 1766100000000-generation-model-openai gives the seeded row the same mapping.
    openai: { sizes: ['512x512'] },
    // Migration 1766300000000-generation-batches gives the seeded row the same batch price.
    batchCredits: 2,
  },
  {
    id: 'pixel-flux-1-hd',
    name: 'Demo: procedural shapes, 1024x1024 (not an AI model)',
    type: 'TEXT_TO_IMAGE',
    credits: 12,
    minimumCredits: 12,
    synchronous: true,
    minPlan: 'pro',
    status: 'active',
    provider: 'demo',
    description:
      "Built-in demo engine, not an AI model: the 512x512 demo drawn at 1024x1024. For trying the API offline.",
    engine: 'image',
    params: { width: 1024, height: 1024, latencyMs: 400 },
    openai: { sizes: ['1024x1024'] },
    batchCredits: 6,
  },
  {
    id: 'motion-lite-1',
    name: 'Demo: moving shapes, 3 s video (not an AI model)',
    type: 'TEXT_TO_VIDEO',
    credits: 40,
    minimumCredits: 40,
    synchronous: false,
    minPlan: 'free',
    status: 'active',
    provider: 'demo',
    description:
      "Built-in demo engine, not an AI model: a 3-second MP4 of shapes picked from the prompt drifting over a changing background. For trying asynchronous jobs offline.",
    engine: 'video',
    params: { durationSeconds: 3, fps: 10, width: 160, height: 128, latencyMs: 3000 },
  },
  {
    id: 'tone-weaver-1',
    name: 'Demo: chord melody, 4 s (not an AI model)',
    type: 'TEXT_TO_AUDIO',
    credits: 10,
    minimumCredits: 10,
    synchronous: false,
    minPlan: 'free',
    status: 'active',
    provider: 'demo',
    description:
      "Built-in demo engine, not an AI model: a 4-second WAV of a chord melody picked from the prompt. For trying audio jobs offline.",
    engine: 'audio',
    params: { durationSeconds: 4, sampleRate: 22050, latencyMs: 1000 },
  },
  {
    id: 'mesh-smith-1',
    name: 'Demo: star-shaped prism, GLB (not an AI model)',
    type: 'TEXT_TO_3D',
    credits: 25,
    minimumCredits: 25,
    synchronous: false,
    minPlan: 'lite',
    status: 'active',
    provider: 'demo',
    description:
      "Built-in demo engine, not an AI model: a GLB of a tapered star prism whose points, proportions and material are picked from the prompt. For trying 3D jobs offline.",
    engine: 'mesh',
    params: { latencyMs: 1500 },
  },
  {
    id: 'voice-1',
    name: 'Demo: robotic speech of the prompt, espeak-ng (not an AI model)',
    type: 'TEXT_TO_AUDIO',
    credits: 3,
    minimumCredits: 3,
    synchronous: false,
    minPlan: 'free',
    status: 'active',
    provider: 'demo',
    description:
      "Built-in demo engine, not an AI model: the prompt read aloud by the espeak-ng speech synthesizer (a robotic voice; words as written). For trying speech jobs offline.",
    engine: 'voice',
    params: {},
  },
];
