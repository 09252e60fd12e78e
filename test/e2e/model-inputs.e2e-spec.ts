import { CATALOGUE, Engine, EngineRequest, InstantEngine, ModelDefinitionInput } from '@gen/generation';
import { eventually, http } from '@gen/testing';
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

  const submit = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'inputs-1', prompt: 'a red fox', type: 'TEXT_TO_IMAGE', ...body }, headers });
  const available = async (key: string) => (await http(h.url, 'GET', '/api/v1/credits', { key })).body.available as number;

  describe('POST /api/v1/generate with input and metadata', () => {
    it('applies the input (defaults filled), gives the engine exactly that, keeps every output and charges the computed price', async () => {
      const { key } = await h.account('free', 100);
      const before = engine.inputs.length;
      const res = await submit(key, { input: { num_outputs: 3, seed: 7 }, metadata: { order_id: 'A-1042', user: 'u_77' } });
      expect(res.status).toBe(200);
      const record = res.body;
      const applied = { num_outputs: 3, seed: 7, aspect_ratio: '1:1' };
      expect(record).toMatchObject({ status: 'completed', input: applied, metadata: { order_id: 'A-1042', user: 'u_77' }, credits_charged: 9 });
      expect(engine.inputs.slice(before)).toEqual([applied]);
      expect(record.outputs).toHaveLength(3);
      expect(record.output_url).toBe(record.outputs[0].url);
      for (const output of record.outputs) {
        expect(output).toMatchObject({ content_type: 'image/png', bytes: expect.any(Number) });
        const file = await fetch(output.url);
        expect(file.status).toBe(200);
        expect(Number(file.headers.get('content-length'))).toBe(output.bytes);
      }
      expect(new Set(record.outputs.map((o: { url: string }) => o.url)).size).toBe(3);
      // The read endpoint shows the same record; 9 credits were charged, no more.
      expect((await http(h.url, 'GET', `/api/v1/generations/${record.id}`, { key })).body).toMatchObject({
        input: applied,
        metadata: { order_id: 'A-1042', user: 'u_77' },
        outputs: record.outputs,
      });
      await eventually(async () => available(key), (n) => n === 91);
    });

    it('without input: the defaults, one output, the base price', async () => {
      const { key } = await h.account('free', 100);
      const res = await submit(key, {});
      expect(res.body).toMatchObject({ input: { num_outputs: 1, aspect_ratio: '1:1' }, metadata: {}, credits_charged: 3 });
      expect(res.body.outputs).toHaveLength(1);
    });

    it("402 names the computed amount when the account cannot pay for what the input asks", async () => {
      const { key } = await h.account('free', 10);
      const res = await submit(key, { input: { num_outputs: 4 } });
      expect(res.status).toBe(402);
      expect(res.body.error).toMatchObject({ code: 'insufficient_credits' });
      expect(res.body.error.message).toContain('needs at least 12 available credits');
      expect(await available(key)).toBe(10);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['an unknown field', { input: { steps: 4 } }, 'input.steps: is not an input of this model (its inputs: num_outputs, aspect_ratio, seed, guidance, negative_prompt; see GET /api/v1/models/{id})'],
      ['a wrong type', { input: { seed: 'seven' } }, 'input.seed: must be an integer from 0 to 2147483647'],
      ['out of range', { input: { guidance: 11 } }, 'input.guidance: must be a number from 0 to 10'],
      ['not in the enum', { input: { aspect_ratio: '4:3' } }, 'input.aspect_ratio: must be one of "1:1", "16:9"'],
      ['num_outputs 0', { input: { num_outputs: 0 } }, 'input.num_outputs: must be an integer from 1 to 4'],
      ['num_outputs 1000', { input: { num_outputs: 1000 } }, 'input.num_outputs: must be an integer from 1 to 4'],
      ['a long string', { input: { negative_prompt: 'x'.repeat(201) } }, 'input.negative_prompt: must be a string of at most 200 characters'],
      ['a deep object', { input: { seed: { a: { b: { c: { d: [1, [2, [3]]] } } } } } }, 'input.seed: must be an integer from 0 to 2147483647'],
      ['input as a list', { input: [1, 2] }, "input must be an object of the model's inputs"],
      ['metadata with 17 keys', { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata: at most 16 keys (got 17)'],
      ['a 600-character metadata value', { metadata: { note: 'x'.repeat(600) } }, 'metadata.note: must be at most 500 characters (got 600)'],
      ['a metadata number', { metadata: { n: 5 } }, 'metadata.n: must be a string (write numbers and flags as text)'],
    ])('%s: 422 naming the field, nothing stored, nothing held', async (_name, body, message) => {
      const { key } = await h.account('free', 100);
      const res = await submit(key, body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'validation_error', status: 422, message });
      expect(await available(key)).toBe(100);
      expect((await http(h.url, 'GET', '/api/v1/generations', { key })).body.data).toEqual([]);
    });

    it('every problem of one request in one 422, inputs in the schema order', async () => {
      const { key } = await h.account('free', 100);
      const res = await submit(key, { input: { seed: -1, num_outputs: 9 }, metadata: { note: 'x'.repeat(501) } });
      expect(res.status).toBe(422);
      expect(res.body.error.message.split('; ')).toEqual([
        'input.num_outputs: must be an integer from 1 to 4',
        'input.seed: must be an integer from 0 to 2147483647',
        'metadata.note: must be at most 500 characters (got 501)',
      ]);
    });

    it('a model without inputs refuses any input, as a new user would meet it', async () => {
      const { key } = await h.account('free', 100);
      const res = await http(h.url, 'POST', '/api/v1/generate', { key, body: { model: 'pixel-flux-1', prompt: 'a red fox', type: 'TEXT_TO_IMAGE', input: { seed: 7 } } });
      expect(res.status).toBe(422);
      expect(res.body.error.message).toBe('input.seed: is not an input of this model (it takes no inputs; see GET /api/v1/models/{id})');
    });

    it('the Idempotency-Key fingerprint covers input and metadata (key order aside)', async () => {
      const { key } = await h.account('free', 100);
      const first = await submit(key, { input: { num_outputs: 2, seed: 1 }, metadata: { a: '1' } }, { 'idempotency-key': 'inputs-fp-1' });
      expect(first.status).toBe(200);
      const same = await submit(key, { input: { seed: 1, num_outputs: 2 }, metadata: { a: '1' } }, { 'idempotency-key': 'inputs-fp-1' });
      expect(same.body.id).toBe(first.body.id);
      for (const changed of [{ input: { num_outputs: 3, seed: 1 }, metadata: { a: '1' } }, { input: { num_outputs: 2, seed: 1 }, metadata: { a: '2' } }]) {
        const other = await submit(key, changed, { 'idempotency-key': 'inputs-fp-1' });
        expect(other.status).toBe(422);
        expect(other.body.error.code).toBe('validation_error');
      }
      await eventually(async () => available(key), (n) => n === 94);
    });
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
