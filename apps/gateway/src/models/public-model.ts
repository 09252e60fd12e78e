import type { ModelInfo } from '@gen/contracts';

/**
 * A catalogue entry as /api/v1 shows it: without the `openai` mapping, which only the
 * OpenAI-compatible route reads (GET /openai/v1/models lists the models it serves), so /api/v1's
 * model keeps its documented fields.
 */
export function publicModel(model: ModelInfo): ModelInfo {
  if (model.openai === undefined) return model;
  const { openai: _mapping, ...rest } = model;
  return rest;
}
