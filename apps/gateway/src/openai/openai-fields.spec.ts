import type { ModelInfo, OpenAiImagesMapping } from '@gen/contracts';
import { openAiInput } from './openai-fields';
import { OpenAiRefusal } from './openai-refusal.error';

const model = (openai: OpenAiImagesMapping, properties: ModelInfo['inputs']['properties'] = {}): ModelInfo & { openai: OpenAiImagesMapping } => ({
  id: 'm-1',
  name: 'm',
  type: 'TEXT_TO_IMAGE',
  credits: 1,
  minimum_credits: 1,
  synchronous: true,
  min_plan: 'free',
  provider: 'demo',
  description: '',
  available: true,
  unavailable_reason: null,
  inputs: { type: 'object', properties, additionalProperties: false },
  price_multipliers: [],
  pricing: '',
  openai,
});

const refusal = (call: () => unknown) => {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(OpenAiRefusal);
    return error as OpenAiRefusal;
  }
  throw new Error('not refused');
};

describe('openAiInput', () => {
  it('a model without n, size or quality inputs takes n=1, its own sizes or auto, and ignores quality', () => {
    const fixed = model({ sizes: ['512x512'] });
    expect(openAiInput(fixed, { n: 1, size: '512x512', quality: 'hd' })).toEqual({});
    expect(openAiInput(fixed, { size: 'auto' })).toEqual({});
    expect(refusal(() => openAiInput(fixed, { n: 2 }))).toMatchObject({ code: 'invalid_value', param: 'n' });
    expect(refusal(() => openAiInput(fixed, { size: '1024x1024' })).message).toBe('Invalid size "1024x1024" for model "m-1": it takes 512x512, auto.');
    expect(refusal(() => openAiInput(model({}), { size: '512x512' })).param).toBe('size');
  });

  it('maps n to its input within the input\'s bounds', () => {
    const m = model({ n: 'num_outputs' }, { num_outputs: { type: 'integer', minimum: 1, maximum: 4 } });
    expect(openAiInput(m, { n: 3 })).toEqual({ num_outputs: 3 });
    expect(openAiInput(m, {})).toEqual({});
    expect(refusal(() => openAiInput(m, { n: 5 }))).toMatchObject({ param: 'n' });
  });

  it('maps size to a string input (its enum by default) or to width and height', () => {
    const sized = model({ size: 'size' }, { size: { type: 'string', enum: ['1024x1024', '1536x1024', 'auto'] } });
    expect(openAiInput(sized, { size: '1536x1024' })).toEqual({ size: '1536x1024' });
    expect(refusal(() => openAiInput(sized, { size: '256x256' })).message).toMatch(/1024x1024, 1536x1024, auto/);
    const sides = model({ width: 'w', height: 'h' }, { w: { type: 'integer', minimum: 64, maximum: 2048 }, h: { type: 'integer', minimum: 64, maximum: 2048 } });
    expect(openAiInput(sides, { size: '640x480' })).toEqual({ w: 640, h: 480 });
    expect(refusal(() => openAiInput(sides, { size: '4096x480' })).param).toBe('size');
    expect(refusal(() => openAiInput(sides, { size: 'big' })).param).toBe('size');
  });

  it('maps quality to its input, checked against its enum', () => {
    const m = model({ quality: 'q' }, { q: { type: 'string', enum: ['low', 'high'] } });
    expect(openAiInput(m, { quality: 'high' })).toEqual({ q: 'high' });
    expect(refusal(() => openAiInput(m, { quality: 'hd' })).param).toBe('quality');
  });
});
