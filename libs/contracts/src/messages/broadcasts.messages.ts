import { IsString } from 'class-validator';
import type { GenerationRecord } from '../shared/generation';
import { Nested } from '../validation';
import { GenerationRecordPayload } from './generation-record.payload';

/** The broadcasts' payloads (Broadcasts), checked where they are received (BROADCAST_PAYLOADS). */
export class GenerationChangedBroadcast {
  @IsString() accountId!: string;
  @Nested(() => GenerationRecordPayload) record!: GenerationRecord;
}

export class ApiKeyChangedBroadcast {
  @IsString() apiKeyId!: string;
  /** The key's public lookup id (what gateways cache it by). */
  @IsString() lookupId!: string;
}

export class AccountChangedBroadcast {
  @IsString() accountId!: string;
}
