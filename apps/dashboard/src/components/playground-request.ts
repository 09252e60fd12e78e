import { ApiKey, GenerateBody, Model, ModelInfo } from '../api/api';
import { credits } from '../lib/format';
import { InputValues } from './input-form';
import { isDemo } from './model-label';

/**
 * What the playground works out from the form, without React: a model's summary, the price with the
 * inputs set, the request body, its curl twin, and the fields an answer refused.
 */

/** What the form shows of a model: price, minimum, mode; demos say so. */
export function modelSummary(m: ModelInfo): string {
  return `${isDemo(m) ? 'demo · ' : ''}${credits(m.credits)} · ${m.synchronous ? 'sync' : 'async'}`;
}

/** Single quotes for a shell: the prompt as typed, safely. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The request the playground made, as a curl command for the API itself. The key is never in the
 * page: its public prefix stands there with a placeholder for the rest, which only its owner has.
 */
export function curlFor(origin: string, key: Pick<ApiKey, 'prefix'>, request: GenerateBody): string {
  const body = JSON.stringify({ model: request.model, prompt: request.prompt, type: request.type, ...(request.input ? { input: request.input } : {}) });
  return [
    `curl -s ${origin}/api/v1/generate \\`,
    `  -H "Authorization: Bearer ${key.prefix}<REST_OF_YOUR_KEY>" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d ${shellQuote(body)}`,
  ].join('\n');
}

/**
 * The errors of an answer that name input fields (`input.seed: must be an integer from 0 to
 * 2147483647; input.aspect_ratio: ...`), by field; null when it names none.
 */
export function inputErrors(message: string): Record<string, string> | null {
  const found: Record<string, string> = {};
  for (const part of message.split('; ')) {
    const match = /^input\.([A-Za-z0-9_-]+): (.+)$/s.exec(part);
    if (match) found[match[1]] = match[2];
  }
  return Object.keys(found).length > 0 ? found : null;
}

/**
 * What a submit will cost with these inputs: the price times each multiplier input's value (the
 * customer's, else its default), rounded up, as the service computes it (it has the last word).
 */
export function priceWith(model: Model, values: InputValues): number {
  let price = model.credits;
  for (const name of model.price_multipliers ?? []) {
    const value = name in values ? values[name] : model.inputs?.properties?.[name]?.default;
    if (typeof value === 'number' && Number.isFinite(value)) price *= value;
  }
  return Math.ceil(price - 1e-9);
}

/** The body of one submit: the input only when the customer set a field. */
export function requestBody(model: ModelInfo, prompt: string, values: InputValues): GenerateBody {
  const body: GenerateBody = { model: model.id, prompt, type: model.type };
  if (Object.keys(values).length > 0) body.input = values;
  return body;
}

/** A v4 UUID (the Idempotency-Key of one click); getRandomValues works outside secure contexts too, randomUUID does not. */
export function newAttemptId(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
