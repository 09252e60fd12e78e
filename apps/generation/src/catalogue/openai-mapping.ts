import type { GenerationType, OpenAiImagesMapping } from '@gen/contracts';
import type { InputsSchema } from '@gen/model-inputs';
import { isRecord } from '../ports/engine-kind';

const FIELDS = ['n', 'size', 'width', 'height', 'sizes', 'quality'] as const;
const SIZE = /^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$/;

/**
 * A catalogue entry's `openai` block (docs/guide/openai-compatible.md, "Field mapping"): each field
 * names an input of the model of the kind it takes. Problems name `where` and the field; null when
 * there are any.
 */
export function checkOpenAiMapping(
  raw: unknown,
  inputs: InputsSchema,
  type: GenerationType | undefined,
  where: string,
  problems: string[],
): OpenAiImagesMapping | null {
  if (!isRecord(raw)) {
    problems.push(`${where} must be an object {"n"?, "size"?, "width"?, "height"?, "sizes"?, "quality"?}`);
    return null;
  }
  const start = problems.length;
  if (type !== undefined && type !== 'TEXT_TO_IMAGE') problems.push(`${where} is only for TEXT_TO_IMAGE models (the images API makes images)`);
  for (const key of Object.keys(raw)) {
    if (!(FIELDS as readonly string[]).includes(key)) problems.push(`${where}.${key} is not a field of the mapping (fields: ${FIELDS.join(', ')})`);
  }
  const input = (field: 'n' | 'size' | 'width' | 'height' | 'quality', kind: 'integer' | 'string' | null) => {
    const name = raw[field];
    if (name === undefined) return;
    if (typeof name !== 'string' || !inputs.properties[name]) {
      problems.push(`${where}.${field} must name an input of the model (declare it in inputs)`);
      return;
    }
    if (kind && inputs.properties[name].type !== kind) problems.push(`${where}.${field} must name an ${kind} input ("${name}" is ${inputs.properties[name].type})`);
  };
  input('n', 'integer');
  input('size', 'string');
  input('width', 'integer');
  input('height', 'integer');
  input('quality', null);
  if ((raw.width === undefined) !== (raw.height === undefined)) problems.push(`${where}.width and ${where}.height go together`);
  if (raw.size !== undefined && raw.width !== undefined) problems.push(`${where}.size and ${where}.width/height exclude each other`);
  if (raw.sizes !== undefined) {
    if (!Array.isArray(raw.sizes) || raw.sizes.length === 0 || raw.sizes.some((s) => typeof s !== 'string' || !SIZE.test(s))) {
      problems.push(`${where}.sizes must be a non-empty list of sizes "WIDTHxHEIGHT" ("1024x1024")`);
    }
  }
  if (problems.length > start) return null;
  const mapping: OpenAiImagesMapping = {};
  for (const field of FIELDS) if (raw[field] !== undefined) (mapping as Record<string, unknown>)[field] = raw[field];
  return mapping;
}
