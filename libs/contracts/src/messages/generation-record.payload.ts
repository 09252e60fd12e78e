import { IsArray, IsIn, IsNumber, IsObject, IsOptional, IsString } from 'class-validator';
import { GENERATION_TYPES, GenerationOutput, GenerationRecord, GenerationType, JOB_STATUSES, JobStatus } from '../generation';

/**
 * The generation record as events and broadcasts carry it, checked where they are received (the
 * record itself stays an interface in generation.ts: the dashboard reads it, and needs no decorators).
 * Fields added to the record after v1 are optional here, so a message from an older replica passes.
 * Held to the record's one declaration, GENERATION_RECORD_FIELDS (`addedAfterV1`, `nullable`).
 */
export class GenerationRecordPayload implements GenerationRecord {
  @IsString() id!: string;
  @IsIn(JOB_STATUSES) status!: JobStatus;
  @IsIn(GENERATION_TYPES) type!: GenerationType;
  @IsString() model!: string;
  @IsString() prompt!: string;
  @IsOptional() @IsString() output_url!: string | null;
  @IsNumber() credits_charged!: number;
  @IsOptional() @IsString() error!: string | null;
  @IsString() created_at!: string;
  @IsOptional() @IsString() started_at!: string | null;
  @IsOptional() @IsString() completed_at!: string | null;
  @IsOptional() @IsString() canceled_at!: string | null;
  @IsOptional() @IsNumber() queue_position!: number | null;
  @IsOptional() @IsNumber() progress!: number | null;
  @IsOptional() @IsString() output_expires_at!: string | null;
  @IsOptional() @IsObject() input!: Record<string, unknown>;
  @IsOptional() @IsObject() metadata!: Record<string, string>;
  @IsOptional() @IsArray() outputs!: GenerationOutput[];
}
