import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The catalogue becomes data (`models`, managed with the CLI), seeded with the models the code
 * used to compile in, under the same ids; and jobs remember the upstream job they were submitted
 * as (`upstream_ref`), so a job taken over after a crash polls it instead of paying twice.
 */
export class GenerationModels1764300000000 implements MigrationInterface {
  name = 'GenerationModels1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "generation"."models" (
        "id" text PRIMARY KEY CHECK ("id" ~ '^[a-z0-9][a-z0-9._-]{0,99}$'),
        "name" text NOT NULL CHECK (length("name") BETWEEN 1 AND 200),
        "type" text NOT NULL CHECK ("type" IN ('TEXT_TO_IMAGE','TEXT_TO_VIDEO','TEXT_TO_AUDIO','TEXT_TO_3D')),
        "credits" integer NOT NULL CHECK ("credits" >= 0),
        "minimum_credits" integer NOT NULL CHECK ("minimum_credits" >= 0),
        "synchronous" boolean NOT NULL,
        "min_plan" text NOT NULL CHECK ("min_plan" IN ('free','lite','pro','enterprise')),
        "status" text NOT NULL CHECK ("status" IN ('active','disabled')),
        "engine" jsonb NOT NULL CHECK (jsonb_typeof("engine") = 'object' AND jsonb_typeof("engine"->'engine') = 'string'),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      INSERT INTO "generation"."models" ("id", "name", "type", "credits", "minimum_credits", "synchronous", "min_plan", "status", "engine") VALUES
        ('pixel-flux-1', 'Pixel Flux 1 (image, 512x512)', 'TEXT_TO_IMAGE', 4, 4, true, 'free', 'active',
         '{"engine": "image", "width": 512, "height": 512, "latencyMs": 150}'),
        ('pixel-flux-1-hd', 'Pixel Flux 1 HD (image, 1024x1024)', 'TEXT_TO_IMAGE', 12, 12, true, 'pro', 'active',
         '{"engine": "image", "width": 1024, "height": 1024, "latencyMs": 400}'),
        ('motion-lite-1', 'Motion Lite 1 (video, 3 s)', 'TEXT_TO_VIDEO', 40, 40, false, 'free', 'active',
         '{"engine": "video", "durationSeconds": 3, "fps": 10, "width": 160, "height": 128, "latencyMs": 3000}'),
        ('tone-weaver-1', 'Tone Weaver 1 (audio, 4 s)', 'TEXT_TO_AUDIO', 10, 10, false, 'free', 'active',
         '{"engine": "audio", "durationSeconds": 4, "sampleRate": 22050, "latencyMs": 1000}'),
        ('mesh-smith-1', 'Mesh Smith 1 (3D, GLB)', 'TEXT_TO_3D', 25, 25, false, 'lite', 'active',
         '{"engine": "mesh", "latencyMs": 1500}'),
        ('voice-1', 'Voice 1 (speech from the prompt, espeak-ng)', 'TEXT_TO_AUDIO', 3, 3, false, 'free', 'active',
         '{"engine": "voice"}')`);
    await q.query(`ALTER TABLE "generation"."jobs" ADD COLUMN "upstream_ref" text`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "generation"."jobs" DROP COLUMN "upstream_ref"`);
    await q.query(`DROP TABLE "generation"."models"`);
  }
}
