/** Why the OpenAI-compatible route refuses a request in its own terms (OpenAI's `code`); no HTTP here (openai-errors.ts maps it). */
export type OpenAiRefusalCode =
  /** No model has this id. */
  | 'model_not_found'
  /** The model exists but its catalogue entry has no `openai` mapping. */
  | 'model_not_supported'
  /** A field's value the model does not take (`param` names it). */
  | 'invalid_value'
  /** The provider refused the prompt. */
  | 'content_policy_violation'
  /** The generation failed for another reason (refunded). */
  | 'generation_failed'
  /** The generation did not finish while the request waited. */
  | 'generation_pending';

export class OpenAiRefusal extends Error {
  constructor(
    readonly code: OpenAiRefusalCode,
    message: string,
    /** The request field it is about, or null. */
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'OpenAiRefusal';
  }
}
