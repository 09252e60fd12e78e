import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each model says who serves it (`provider`) and what it makes (`description`), and the seed models,
 * built-in demo engines that draw shapes from the prompt, say they are demos rather than AI models.
 * A seed model an operator has renamed keeps its name.
 */
export class GenerationModelLabels1764880000000 implements MigrationInterface {
  name = 'GenerationModelLabels1764880000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."models" ADD COLUMN "provider" text, ADD COLUMN "description" text NOT NULL DEFAULT ''`);
    // The built-in engines' models are demos; a provider adapter's are its provider's (openai-images: openai).
    await q.query(`
      UPDATE "generation"."models" SET "provider" = CASE
        WHEN "engine"->>'engine' IN ('image', 'video', 'audio', 'mesh', 'instant', 'voice') THEN 'demo'
        WHEN "engine"->>'engine' = 'openai-images' THEN 'openai'
        ELSE "engine"->>'engine' END`);
    await q.query(`
      UPDATE "generation"."models" AS m SET
        "name" = CASE WHEN m."name" = s."seed_name" THEN s."demo_name" ELSE m."name" END,
        "description" = s."description"
      FROM (VALUES
        ('pixel-flux-1', 'Pixel Flux 1 (image, 512x512)', 'Demo: procedural shapes, 512x512 (not an AI model)', 'Built-in demo engine, not an AI model: a PNG of coloured shapes on a gradient, picked from the prompt and seed (the same prompt gives the same picture; it does not show what the prompt says). For trying the API offline.'),
        ('pixel-flux-1-hd', 'Pixel Flux 1 HD (image, 1024x1024)', 'Demo: procedural shapes, 1024x1024 (not an AI model)', 'Built-in demo engine, not an AI model: the 512x512 demo drawn at 1024x1024. For trying the API offline.'),
        ('motion-lite-1', 'Motion Lite 1 (video, 3 s)', 'Demo: moving shapes, 3 s video (not an AI model)', 'Built-in demo engine, not an AI model: a 3-second MP4 of shapes picked from the prompt drifting over a changing background. For trying asynchronous jobs offline.'),
        ('tone-weaver-1', 'Tone Weaver 1 (audio, 4 s)', 'Demo: chord melody, 4 s (not an AI model)', 'Built-in demo engine, not an AI model: a 4-second WAV of a chord melody picked from the prompt. For trying audio jobs offline.'),
        ('mesh-smith-1', 'Mesh Smith 1 (3D, GLB)', 'Demo: star-shaped prism, GLB (not an AI model)', 'Built-in demo engine, not an AI model: a GLB of a tapered star prism whose points, proportions and material are picked from the prompt. For trying 3D jobs offline.'),
        ('voice-1', 'Voice 1 (speech from the prompt, espeak-ng)', 'Demo: robotic speech of the prompt, espeak-ng (not an AI model)', 'Built-in demo engine, not an AI model: the prompt read aloud by the espeak-ng speech synthesizer (a robotic voice; words as written). For trying speech jobs offline.')
      ) AS s ("id", "seed_name", "demo_name", "description")
      WHERE m."id" = s."id" AND m."provider" = 'demo'`);
    await q.query(`ALTER TABLE "generation"."models" ALTER COLUMN "provider" SET NOT NULL, ALTER COLUMN "description" DROP DEFAULT`);
    await q.query(`ALTER TABLE "generation"."models"
      ADD CONSTRAINT "models_provider_check" CHECK ("provider" ~ '^[a-z0-9][a-z0-9._-]{0,39}$'),
      ADD CONSTRAINT "models_description_check" CHECK (length("description") <= 1000)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE "generation"."models" AS m SET "name" = s."seed_name"
      FROM (VALUES
        ('pixel-flux-1', 'Pixel Flux 1 (image, 512x512)', 'Demo: procedural shapes, 512x512 (not an AI model)'),
        ('pixel-flux-1-hd', 'Pixel Flux 1 HD (image, 1024x1024)', 'Demo: procedural shapes, 1024x1024 (not an AI model)'),
        ('motion-lite-1', 'Motion Lite 1 (video, 3 s)', 'Demo: moving shapes, 3 s video (not an AI model)'),
        ('tone-weaver-1', 'Tone Weaver 1 (audio, 4 s)', 'Demo: chord melody, 4 s (not an AI model)'),
        ('mesh-smith-1', 'Mesh Smith 1 (3D, GLB)', 'Demo: star-shaped prism, GLB (not an AI model)'),
        ('voice-1', 'Voice 1 (speech from the prompt, espeak-ng)', 'Demo: robotic speech of the prompt, espeak-ng (not an AI model)')
      ) AS s ("id", "seed_name", "demo_name")
      WHERE m."id" = s."id" AND m."name" = s."demo_name"`);
    await q.query(`ALTER TABLE "generation"."models" DROP COLUMN "description", DROP COLUMN "provider"`);
  }
}
