import type { InputProperty, ModelInfo, OpenAiImagesMapping } from '@gen/contracts';
import type { OpenAiImageRequestDto } from './image-request.dto';
import { OpenAiRefusal } from './openai-refusal.error';

const SIZE = /^([1-9][0-9]{0,4})x([1-9][0-9]{0,4})$/;

/**
 * The model's `input` for an OpenAI images request, by the model's `openai` mapping
 * (docs/guide/openai-compatible.md, "Field mapping"). A value the mapping or the input's schema does
 * not take is refused here, naming OpenAI's field (`param`), not the model's input.
 */
export function openAiInput(model: ModelInfo & { openai: OpenAiImagesMapping }, body: Pick<OpenAiImageRequestDto, 'n' | 'size' | 'quality'>): Record<string, unknown> {
  const mapping = model.openai;
  const input: Record<string, unknown> = {};
  const property = (name: string): InputProperty | undefined => model.inputs.properties[name];

  const n = body.n ?? 1;
  if (mapping.n === undefined) {
    if (n !== 1) throw new OpenAiRefusal('invalid_value', `Model "${model.id}" makes one image per request: n must be 1.`, 'n');
  } else {
    const { minimum = 1, maximum } = property(mapping.n) ?? {};
    if (n < minimum || (maximum !== undefined && n > maximum)) {
      throw new OpenAiRefusal('invalid_value', `Model "${model.id}" makes from ${minimum} to ${maximum ?? 'any number of'} images per request: n is ${n}.`, 'n');
    }
    if (body.n !== undefined) input[mapping.n] = n;
  }

  if (body.size !== undefined && body.size !== 'auto') {
    const sizes = sizesOf(mapping, property);
    const match = SIZE.exec(body.size);
    if (!match || (sizes !== null && !sizes.includes(body.size))) {
      const accepted = sizes === null ? 'a size WIDTHxHEIGHT (1024x1024) or auto' : [...sizes, 'auto'].join(', ');
      throw new OpenAiRefusal('invalid_value', `Invalid size "${body.size}" for model "${model.id}": it takes ${accepted}.`, 'size');
    }
    if (mapping.size !== undefined) input[mapping.size] = body.size;
    if (mapping.width !== undefined && mapping.height !== undefined) {
      const [width, height] = [Number(match[1]), Number(match[2])];
      for (const [name, value] of [[mapping.width, width], [mapping.height, height]] as const) {
        const { minimum, maximum } = property(name) ?? {};
        if ((minimum !== undefined && value < minimum) || (maximum !== undefined && value > maximum)) {
          throw new OpenAiRefusal('invalid_value', `Invalid size "${body.size}" for model "${model.id}": each side must be from ${minimum ?? 1} to ${maximum ?? 'any'} pixels.`, 'size');
        }
      }
      input[mapping.width] = width;
      input[mapping.height] = height;
    }
  }

  if (body.quality !== undefined && mapping.quality !== undefined) {
    const accepted = property(mapping.quality)?.enum;
    if (accepted && !accepted.includes(body.quality)) {
      throw new OpenAiRefusal('invalid_value', `Invalid quality "${body.quality}" for model "${model.id}": it takes ${accepted.join(', ')}.`, 'quality');
    }
    input[mapping.quality] = body.quality;
  }
  return input;
}

/** The sizes a model takes: its mapping's list, else its size input's enum; null: any `WxH`. */
function sizesOf(mapping: OpenAiImagesMapping, property: (name: string) => InputProperty | undefined): string[] | null {
  if (mapping.sizes) return mapping.sizes;
  if (mapping.size !== undefined) {
    const values = property(mapping.size)?.enum?.map(String).filter((s) => s !== 'auto');
    return values && values.length > 0 ? values : null;
  }
  return mapping.width !== undefined ? null : [];
}
