import { Inject, Injectable } from '@nestjs/common';
import { readRows, sqlRows } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { GENERATION_DB } from '../config/generation.tokens';
import type { InputsSchema } from '@gen/model-inputs';
import type { OpenAiImagesMapping } from '@gen/contracts';
import type { ModelDefinition, ModelStatus } from './catalogue';
import { stableJson } from './stable-json';

/** What `sync` did to each model. */
export interface CatalogueSyncResult {
  added: string[];
  updated: string[];
  /** In the database, absent from the file: disabled (never deleted: jobs and ledgers name them). */
  disabled: string[];
  unchanged: string[];
}

interface ModelRow {
  id: string;
  name: string;
  type: ModelDefinition['type'];
  credits: number;
  minimum_credits: number;
  synchronous: boolean;
  min_plan: ModelDefinition['minPlan'];
  status: ModelStatus;
  provider: string;
  description: string;
  inputs: InputsSchema | null;
  price_multipliers: string[];
  openai: OpenAiImagesMapping | null;
  batch_credits: number | null;
  engine: { engine: string } & Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

export type StoredModel = ModelDefinition & { createdAt: Date; updatedAt: Date };

const COLUMNS = `id, name, type, credits, minimum_credits, synchronous, min_plan, status, provider, description, engine, inputs, price_multipliers, openai,
  batch_credits, created_at, updated_at`;

/** The catalogue table (`generation.models`). Every write sets `updated_at`; replicas re-read it. */
@Injectable()
export class ModelsRepository {
  constructor(@Inject(GENERATION_DB) private readonly db: DataSource) {}

  async all(): Promise<StoredModel[]> {
    const rows = await readRows<ModelRow>(this.db, `SELECT ${COLUMNS} FROM models ORDER BY id`);
    return rows.map(fromRow);
  }

  async find(id: string): Promise<StoredModel | null> {
    const rows = await readRows<ModelRow>(this.db, `SELECT ${COLUMNS} FROM models WHERE id = $1`, [id]);
    return rows.length ? fromRow(rows[0]) : null;
  }

  /** Inserts a new model; null when the id is taken. */
  async insert(model: ModelDefinition): Promise<StoredModel | null> {
    const rows = await sqlRows<ModelRow>(this.db,
      `INSERT INTO models (id, name, type, credits, minimum_credits, synchronous, min_plan, status, engine, provider, description, inputs, price_multipliers, openai, batch_credits)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12::json, $13::text[], $14::json, $15)
       ON CONFLICT (id) DO NOTHING
       RETURNING ${COLUMNS}`,
      toParams(model),
    );
    return rows.length ? fromRow(rows[0]) : null;
  }

  /**
   * Writes the model's whole definition; `updated_at` moves only when something changed. Null when
   * there is no such model.
   */
  async replace(model: ModelDefinition): Promise<StoredModel | null> {
    const rows = await sqlRows<ModelRow>(this.db,
      `UPDATE models SET name = $2, type = $3, credits = $4, minimum_credits = $5, synchronous = $6, min_plan = $7,
              status = $8, engine = $9::jsonb, provider = $10, description = $11, inputs = $12::json, price_multipliers = $13::text[], openai = $14::json, batch_credits = $15,
              updated_at = CASE WHEN (name, type, credits, minimum_credits, synchronous, min_plan, status, engine, provider, description, inputs::text, price_multipliers, openai::text, batch_credits)
                                  IS DISTINCT FROM ($2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12::text, $13::text[], $14::text, $15::int) THEN now() ELSE updated_at END
       WHERE id = $1
       RETURNING ${COLUMNS}`,
      toParams(model),
    );
    return rows.length ? fromRow(rows[0]) : null;
  }

  /**
   * Makes the table equal the given catalogue, in one transaction: new models inserted, changed
   * ones updated, the ones not listed disabled. Idempotent: a second run of the same file changes
   * nothing (and reports every model unchanged).
   */
  async sync(models: readonly ModelDefinition[]): Promise<CatalogueSyncResult> {
    return this.db.transaction(async (tx) => {
      // One sync at a time, so two operators (or a Job retried) cannot interleave.
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('generation.models.sync'))`);
      const before = new Map((await sqlRows<ModelRow>(tx, `SELECT ${COLUMNS} FROM models FOR UPDATE`)).map((r) => [r.id, fromRow(r)]));
      const result: CatalogueSyncResult = { added: [], updated: [], disabled: [], unchanged: [] };
      for (const model of models) {
        const existing = before.get(model.id);
        if (!existing) {
          await tx.query(
            `INSERT INTO models (id, name, type, credits, minimum_credits, synchronous, min_plan, status, engine, provider, description, inputs, price_multipliers, openai, batch_credits)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12::json, $13::text[], $14::json, $15)`,
            toParams(model),
          );
          result.added.push(model.id);
        } else if (sameDefinition(existing, model)) {
          result.unchanged.push(model.id);
        } else {
          await tx.query(
            `UPDATE models SET name = $2, type = $3, credits = $4, minimum_credits = $5, synchronous = $6, min_plan = $7,
                    status = $8, engine = $9::jsonb, provider = $10, description = $11, inputs = $12::json,
                    price_multipliers = $13::text[], openai = $14::json, batch_credits = $15, updated_at = now()
             WHERE id = $1`,
            toParams(model),
          );
          result.updated.push(model.id);
        }
      }
      const listed = new Set(models.map((m) => m.id));
      for (const existing of before.values()) {
        if (listed.has(existing.id) || existing.status === 'disabled') continue;
        await tx.query(`UPDATE models SET status = 'disabled', updated_at = now() WHERE id = $1`, [existing.id]);
        result.disabled.push(existing.id);
      }
      return result;
    });
  }
}

function toParams(model: ModelDefinition): unknown[] {
  return [
    model.id,
    model.name,
    model.type,
    model.credits,
    model.minimumCredits,
    model.synchronous,
    model.minPlan,
    model.status,
    JSON.stringify({ engine: model.engine, ...model.params }),
    model.provider,
    model.description,
    model.inputs ? JSON.stringify(model.inputs) : null,
    model.priceMultipliers ?? [],
    model.openai ? JSON.stringify(model.openai) : null,
    model.batchCredits ?? null,
  ];
}

function fromRow(row: ModelRow): StoredModel {
  const { engine, ...params } = row.engine;
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    credits: row.credits,
    minimumCredits: row.minimum_credits,
    synchronous: row.synchronous,
    minPlan: row.min_plan,
    status: row.status,
    provider: row.provider,
    description: row.description,
    engine,
    params,
    ...(row.inputs && { inputs: row.inputs }),
    ...(row.price_multipliers.length > 0 && { priceMultipliers: row.price_multipliers }),
    ...(row.openai && { openai: row.openai }),
    ...(row.batch_credits !== null && { batchCredits: row.batch_credits }),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Equal definitions, settings compared by content (key order does not matter, as in jsonb). */
export function sameDefinition(a: ModelDefinition, b: ModelDefinition): boolean {
  return (
    a.name === b.name &&
    a.type === b.type &&
    a.credits === b.credits &&
    a.minimumCredits === b.minimumCredits &&
    a.synchronous === b.synchronous &&
    a.minPlan === b.minPlan &&
    a.status === b.status &&
    a.provider === b.provider &&
    a.description === b.description &&
    a.engine === b.engine &&
    stableJson(a.params) === stableJson(b.params) &&
    stableJson(a.inputs ?? null) === stableJson(b.inputs ?? null) &&
    stableJson(a.priceMultipliers ?? []) === stableJson(b.priceMultipliers ?? []) &&
    stableJson(a.openai ?? null) === stableJson(b.openai ?? null) &&
    (a.batchCredits ?? null) === (b.batchCredits ?? null)
  );
}

