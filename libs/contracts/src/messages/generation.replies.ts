import type { GenerationRecord, ModelInfo } from '../shared/generation';

/** What the generation service answers (read by the gateway, which asked; not checked on receipt). */
export interface SubmitGenerationReply {
  /** True when the record is final (completed or failed). */
  finished: boolean;
  record: GenerationRecord;
}
export interface ListGenerationsReply {
  data: GenerationRecord[];
  next_cursor: string | null;
}
export interface CancelGenerationReply {
  /** True once the record is final (canceled, or it was already); false while a processing job is being stopped. */
  finished: boolean;
  record: GenerationRecord;
}
export interface OutputStatusReply {
  status: 'expired' | 'unknown';
}
export interface ListModelsReply {
  data: ModelInfo[];
  /**
   * Names this content of the catalogue (a digest of every model's definition). The gateway sends it
   * with each submit, so that the hold, the admission and the charge of one job use one catalogue.
   */
  version?: string;
}
