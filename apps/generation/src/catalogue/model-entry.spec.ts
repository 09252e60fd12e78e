import { engineKinds } from '../engine-kinds';
import { CATALOGUE } from './catalogue';
import { parseCatalogueFile, parseModelEntry, toModelEntry } from './model-entry';

const kinds = engineKinds();
const entry = (overrides: Record<string, unknown> = {}) => ({
  id: 'fox-1',
  name: 'Fox 1',
  type: 'TEXT_TO_IMAGE',
  credits: 5,
  minimum_credits: 5,
  synchronous: true,
  min_plan: 'free',
  engine: { engine: 'image', width: 256, height: 256 },
  ...overrides,
});

describe('parseModelEntry', () => {
  it('reads a valid entry into a definition (status active unless given)', () => {
    const problems: string[] = [];
    expect(parseModelEntry(entry(), 'model', kinds, problems)).toEqual({
      id: 'fox-1',
      name: 'Fox 1',
      type: 'TEXT_TO_IMAGE',
      credits: 5,
      minimumCredits: 5,
      synchronous: true,
      minPlan: 'free',
      status: 'active',
      provider: 'demo',
      description: '',
      engine: 'image',
      params: { width: 256, height: 256 },
    });
    expect(problems).toEqual([]);
  });

  it('reads batch_credits (a batch line\'s price, 1 to credits) and writes it back', () => {
    const model = parseModelEntry(entry({ batch_credits: 3 }), 'model', kinds, []);
    expect(model).toMatchObject({ credits: 5, batchCredits: 3 });
    expect(toModelEntry(model!)).toMatchObject({ batch_credits: 3 });
    expect(parseModelEntry(toModelEntry(model!), 'model', kinds, [])).toEqual(model);
    expect(toModelEntry(parseModelEntry(entry(), 'model', kinds, [])!)).not.toHaveProperty('batch_credits');
    const refused = (batchCredits: unknown) => {
      const problems: string[] = [];
      expect(parseModelEntry(entry({ batch_credits: batchCredits }), 'model', kinds, problems)).toBeNull();
      return problems.join('\n');
    };
    expect(refused(6)).toMatch(/model\.batch_credits must be at most credits \(5\)/);
    expect(refused(0)).toMatch(/model\.batch_credits must be an integer/);
    expect(refused(2.5)).toMatch(/model\.batch_credits must be an integer/);
  });

  it('reads inputs, price_multipliers and an inputMap, and refuses them where they do not fit together', () => {
    const inputs = {
      type: 'object',
      properties: { num_outputs: { type: 'integer', minimum: 1, maximum: 4, default: 1 }, seed: { type: 'integer', minimum: 0 } },
      additionalProperties: false,
    };
    const replicate = { engine: 'replicate', upstreamModel: 'black-forest-labs/flux-schnell', tokenEnv: 'REPLICATE_API_TOKEN' };
    const model = parseModelEntry(entry({ inputs, price_multipliers: ['num_outputs'], engine: { ...replicate, inputMap: { num_outputs: 'num_images' } } }), 'model', kinds, []);
    expect(model).toMatchObject({ inputs, priceMultipliers: ['num_outputs'], params: { inputMap: { num_outputs: 'num_images' } } });
    expect(toModelEntry(model!)).toMatchObject({ inputs, price_multipliers: ['num_outputs'] });
    // Written back and read again: the same definition.
    expect(parseModelEntry(toModelEntry(model!), 'model', kinds, [])).toEqual(model);

    const refused = (overrides: Record<string, unknown>) => {
      const problems: string[] = [];
      expect(parseModelEntry(entry(overrides), 'model', kinds, problems)).toBeNull();
      return problems.join('\n');
    };
    expect(refused({ inputs: { type: 'object', properties: { s: { type: 'string', pattern: 'x' } } } })).toMatch(/^model\.inputs\.properties\.s\.pattern: keyword not supported/);
    expect(refused({ inputs, price_multipliers: ['seed'] })).toMatch(/model\.price_multipliers: "seed" needs a minimum of 0 or more and a maximum/);
    expect(refused({ price_multipliers: ['num_outputs'] })).toMatch(/"num_outputs" is not an input of the model/);
    expect(refused({ inputs, engine: { ...replicate, inputMap: { steps: 'num_inference_steps' } } })).toMatch(/model\.engine\.inputMap\.steps is not an input of the model/);
    expect(refused({ inputs, engine: { ...replicate, inputMap: { seed: 'not a field' } } })).toMatch(/inputMap\.seed must map an input name to a field name/);
  });

  it('reads an openai mapping that names inputs of the right kinds, and refuses one that does not', () => {
    const inputs = {
      type: 'object',
      properties: {
        num_outputs: { type: 'integer', minimum: 1, maximum: 4 },
        size: { type: 'string', enum: ['1024x1024', '1536x1024'] },
        quality: { type: 'string', enum: ['low', 'high'] },
      },
      additionalProperties: false,
    };
    const openai = { n: 'num_outputs', size: 'size', quality: 'quality' };
    const problems: string[] = [];
    expect(parseModelEntry(entry({ inputs, openai }), 'model', kinds, problems)?.openai).toEqual(openai);
    expect(problems).toEqual([]);
    const refused: string[] = [];
    expect(
      parseModelEntry(entry({ inputs, openai: { n: 'size', size: 'seed', width: 'num_outputs', sizes: ['big'], style: 'vivid' } }), 'model', kinds, refused),
    ).toBeNull();
    expect(refused).toEqual([
      'model.openai.style is not a field of the mapping (fields: n, size, width, height, sizes, quality)',
      'model.openai.n must name an integer input ("size" is string)',
      'model.openai.size must name an input of the model (declare it in inputs)',
      'model.openai.width and model.openai.height go together',
      'model.openai.size and model.openai.width/height exclude each other',
      'model.openai.sizes must be a non-empty list of sizes "WIDTHxHEIGHT" ("1024x1024")',
    ]);
    const video: string[] = [];
    parseModelEntry(entry({ type: 'TEXT_TO_VIDEO', engine: { engine: 'video' }, openai: {} }), 'model', kinds, video);
    expect(video).toEqual(['model.openai is only for TEXT_TO_IMAGE models (the images API makes images)']);
  });

  it("takes the provider from the engine kind unless given, and never lets a built-in engine pass for a provider's model", () => {
    const providerOf = (overrides: Record<string, unknown>) => parseModelEntry(entry(overrides), 'model', kinds, [])?.provider;
    const replicate = { engine: 'replicate', upstreamModel: 'black-forest-labs/flux-schnell', tokenEnv: 'REPLICATE_API_TOKEN' };
    expect(providerOf({ engine: replicate })).toBe('replicate');
    expect(providerOf({ engine: { engine: 'openai-images', upstreamModel: 'gpt-image-1', tokenEnv: 'OPENAI_API_KEY' } })).toBe('openai');
    expect(providerOf({ engine: replicate, provider: 'black-forest-labs' })).toBe('black-forest-labs');
    const problems: string[] = [];
    expect(parseModelEntry(entry({ provider: 'replicate' }), 'model', kinds, problems)).toBeNull();
    expect(problems).toEqual(['model.provider must be "demo": the "image" engine is a built-in demo, not a model provider']);
    expect(parseModelEntry(entry({ description: '  Draws a fox.\nIn colour.  ' }), 'model', kinds, [])?.description).toBe('Draws a fox.\nIn colour.');
  });

  it('labels every seed model a demo that is not an AI model', () => {
    for (const model of CATALOGUE) {
      expect(model.provider).toBe('demo');
      expect(model.name).toMatch(/^Demo: .+ \(not an AI model\)$/);
      expect(model.description).toMatch(/^Built-in demo engine, not an AI model: /);
    }
  });

  it('round-trips every seed model through the operator format', () => {
    for (const model of CATALOGUE) {
      const problems: string[] = [];
      expect(parseModelEntry(toModelEntry(model), model.id, kinds, problems)).toEqual(model);
      expect(problems).toEqual([]);
    }
  });

  it.each([
    [{ id: 'Fox 1' }, 'model.id must be'],
    [{ name: '' }, 'model.name must be'],
    [{ type: 'TEXT_TO_SMELL' }, 'model.type must be one of'],
    [{ credits: -1 }, 'model.credits must be an integer'],
    [{ credits: 1.5 }, 'model.credits must be an integer'],
    [{ minimum_credits: '5' }, 'model.minimum_credits must be an integer'],
    [{ synchronous: 'yes' }, 'model.synchronous must be true or false'],
    [{ min_plan: 'gold' }, 'model.min_plan must be one of'],
    [{ status: 'paused' }, 'model.status must be one of'],
    [{ colour: 'red' }, 'model.colour is not a field of a model'],
    [{ provider: 'Black Forest Labs' }, 'model.provider must be 1 to 40 characters'],
    [{ description: 'x'.repeat(1001) }, 'model.description must be text of at most 1000 characters'],
    [{ description: 'a\u0007bell' }, 'model.description must be text'],
    [{ engine: 'image' }, 'model.engine must be an object'],
    [{ engine: { engine: 'warp' } }, 'model.engine.engine "warp" is not an engine kind'],
    [{ engine: { engine: 'image', width: 10 } }, 'model.engine.width must be an integer between 64 and 2048'],
    [{ engine: { engine: 'image', depth: 3 } }, 'model.engine.depth is not a setting of this engine'],
    [{ engine: { engine: 'remote', baseUrl: 'http://x.test', auth: { header: 'Authorization', value: 'sk-123' } } }, 'never stored in the catalogue'],
  ])('refuses %j naming the field', (overrides, message) => {
    const problems: string[] = [];
    expect(parseModelEntry(entry(overrides), 'model', kinds, problems)).toBeNull();
    expect(problems.join('\n')).toContain(message);
  });
});

describe('parseCatalogueFile', () => {
  it('names every bad entry by index and id, and repeats', () => {
    const problems: string[] = [];
    const models = parseCatalogueFile(
      { models: [entry(), entry({ id: 'wolf-1', credits: 'x' }), entry({ name: 'again' })] },
      kinds,
      problems,
    );
    expect(models.map((m) => m.id)).toEqual(['fox-1', 'fox-1']);
    expect(problems).toEqual([
      'models[1] ("wolf-1").credits must be an integer between 0 and 1000000',
      'models[2] ("fox-1").id repeats models[0]',
    ]);
  });

  it('needs {"models": [...]}', () => {
    const problems: string[] = [];
    parseCatalogueFile([entry()], kinds, problems);
    expect(problems).toEqual(['the catalogue file must be a JSON object {"models": [ ... ]}']);
  });
});
