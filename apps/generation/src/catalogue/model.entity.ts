import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { GenerationType, PlanName } from '@gen/contracts';
import type { ModelStatus } from './catalogue';

/** A catalogue model (docs/engines.md). `engine` is its binding: `{"engine": "<kind>", ...settings}`. */
@Entity({ name: 'models' })
export class ModelEntity {
  @PrimaryColumn('text')
  id!: string;

  @Column('text')
  name!: string;

  @Column('text')
  type!: GenerationType;

  @Column('integer')
  credits!: number;

  @Column('integer', { name: 'minimum_credits' })
  minimumCredits!: number;

  @Column('boolean')
  synchronous!: boolean;

  @Column('text', { name: 'min_plan' })
  minPlan!: PlanName;

  @Column('text')
  status!: ModelStatus;

  @Column('jsonb')
  engine!: { engine: string } & Record<string, unknown>;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}
