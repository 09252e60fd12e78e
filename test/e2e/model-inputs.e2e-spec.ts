import { CATALOGUE, Engine, EngineRequest, InstantEngine, ModelDefinitionInput } from '@gen/generation';
import { http } from '@gen/testing';
import { testModel } from '../support/factories';
import { StandaloneHarness, startStandaloneHarness } from '../support/standalone-harness';

/** The schema of the test model: one of each kind of input the service enforces. */
const INPUTS = {
  type: 'object',
  properties: {
    num_outputs: { type: 'integer', minimum: 1, maximum: 4, default: 1, description: 'Number of images.' },
    aspect_ratio: { type: 'string', enum: ['1:1', '16:9'], default: '1:1' },
    seed: { type: 'integer', minimum: 0, maximum: 2147483647 },
    guidance: { type: 'number', minimum: 0, maximum: 10 },
    negative_prompt: { type: 'string', maxLength: 200 },
  },
  additionalProperties: false,
} as const;

/** An engine that records the input it is given and answers one tiny image per `num_outputs`. */
class RecordingEngine implements Engine {
  readonly name = 'recording';
  readonly inputs: Array<Readonly<Record<string, unknown>>> = [];
  private readonly instant = new InstantEngine();

  async generate(request: EngineRequest) {
    this.inputs.push(request.input);
    const [image] = await this.instant.generate(request);
    const count = typeof request.input.num_outputs === 'number' ? request.input.num_outputs : 1;
    return Array.from({ length: count }, () => image);
  }
}

const INPUT_MODEL: ModelDefinitionInput = testModel({
  id: 'inputs-1',
  engine: 'recording',
  credits: 3,
  inputs: INPUTS as unknown as ModelDefinitionInput['inputs'],
  priceMultipliers: ['num_outputs'],
});

describe('model inputs, outputs and metadata (standalone)', () => {
  let h: StandaloneHarness;
  const engine = new RecordingEngine();

  beforeAll(async () => {
    h = await startStandaloneHarness({}, { models: [...CATALOGUE, INPUT_MODEL], engines: { recording: engine } });
  });
  afterAll(async () => {
    await h?.close();
  });

  describe('GET /api/v1/models/{id}', () => {
    it('returns the model with its inputs schema and how its price is computed; the list carries the same', async () => {
      const { key } = await h.account('free', 100);
      const one = await http(h.url, 'GET', '/api/v1/models/inputs-1', { key });
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ id: 'inputs-1', credits: 3, inputs: INPUTS, price_multipliers: ['num_outputs'] });
      expect(one.body.pricing).toMatch(/^3 credits × num_outputs .*rounded up to a whole credit$/);
      const list = (await http(h.url, 'GET', '/api/v1/models', { key })).body.data;
      expect(list.find((m: { id: string }) => m.id === 'inputs-1')).toEqual(one.body);
      // A model that takes only a prompt says so.
      expect((await http(h.url, 'GET', '/api/v1/models/pixel-flux-1', { key })).body).toMatchObject({
        inputs: { type: 'object', properties: {}, additionalProperties: false },
        price_multipliers: [],
        pricing: '4 credits per generation',
      });
    });

    it('an unknown model is 404 not_found in the envelope', async () => {
      const { key } = await h.account('free', 100);
      const res = await http(h.url, 'GET', '/api/v1/models/no-such-model', { key });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'not_found', status: 404, message: 'Unknown model "no-such-model". See GET /api/v1/models.' });
    });
  });
});
