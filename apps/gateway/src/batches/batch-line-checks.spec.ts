import { BatchLinePayload, BatchLineProblemPayload, CreateBatchRequest, ModelInfo, Subjects } from '@gen/contracts';
import { NotDeliveredError, RpcClient } from '@gen/transport';
import { GenerateCheck, GenerateCheckContext } from '../generations/submit/generate-check';
import type { GatewaySettings } from '../settings/gateway.tokens';
import type { AccountPlanService } from '../plans/account-plan.service';
import type { UploadsRepository } from '../uploads/uploads.repository';
import type { UploadFilesRepository } from '../uploads/upload-files.repository';
import { UploadsService } from '../uploads/uploads.service';
import { readBatchFile } from './batch-file';
import { BATCHES_NEED_NEWER_GENERATION, BatchHandover, chunkLines, MAX_LINES_MESSAGE_BYTES } from './batch-handover';
import { BatchLineChecks } from './batch-line-checks';
import { BatchLinesRefused } from './batch-refusal';

const settings = {
  publicBaseUrl: 'http://localhost:3000',
  webhookPolicy: { allowHttp: false, allowPrivate: false, allowList: [], ports: [] },
} as unknown as GatewaySettings;

const model = (id: string, extra: Partial<ModelInfo> = {}): ModelInfo => ({
  id,
  name: id,
  type: 'TEXT_TO_IMAGE',
  credits: 4,
  minimum_credits: 4,
  synchronous: false,
  min_plan: 'free',
  provider: 'demo',
  description: '',
  available: true,
  unavailable_reason: null,
  inputs: {
    type: 'object',
    properties: { num_outputs: { type: 'integer', minimum: 1, maximum: 4, default: 1 }, image: { type: 'string', format: 'uri' } },
    additionalProperties: false,
  },
  price_multipliers: ['num_outputs'],
  pricing: '4 credits × num_outputs',
  ...extra,
});

const context: GenerateCheckContext = {
  accountId: '11111111-1111-4111-8111-111111111111',
  plan: 'free',
  models: new Map([
    ['cheap', model('cheap', { batch_credits: 2 })],
    ['plain', model('plain')],
    ['pro-only', model('pro-only', { min_plan: 'pro' })],
  ]),
  key: { defaultWebhookUrl: 'https://hooks.example.com/default', hasSecret: true },
};

// A real UploadsService: a line's media input that is not an upload is refused before anything is read.
const uploads = new UploadsService({} as UploadsRepository, {} as UploadFilesRepository, {} as AccountPlanService, settings, null);
const checks = new BatchLineChecks(new GenerateCheck(uploads, settings));
const body = (extra: Record<string, unknown> = {}) => ({ model: 'cheap', prompt: '  a red chair  ', type: 'TEXT_TO_IMAGE', ...extra });
const jsonl = (...lines: unknown[]) => Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n'));

describe('BatchLineChecks: each line checked as POST /api/v1/generate checks its body', () => {
  it('prices a line with the batch price (times its multipliers), else the price, and applies its input', async () => {
    const read = readBatchFile(jsonl({ custom_id: 'a', body: body({ input: { num_outputs: 3 } }) }, { custom_id: 'b', body: body({ model: 'plain' }) }));
    const { lines, invalid } = await checks.check(read, context);
    expect(invalid).toEqual([]);
    expect(lines.map((l) => [l.customId, l.model, l.credits, l.minimumCredits, l.input, l.prompt, l.webhookUrl])).toEqual([
      ['a', 'cheap', 6, 4, { num_outputs: 3 }, 'a red chair', null],
      ['b', 'plain', 4, 4, { num_outputs: 1 }, 'a red chair', null],
    ]);
  });

  it("refuses an unknown model, a model above the plan, a wrong type, a bad input or metadata, the DTO's rules", async () => {
    const read = readBatchFile(
      jsonl(
        { custom_id: 'unknown', body: body({ model: 'fox-9' }) },
        { custom_id: 'plan', body: body({ model: 'pro-only' }) },
        { custom_id: 'type', body: body({ type: 'TEXT_TO_VIDEO' }) },
        { custom_id: 'input', body: body({ input: { num_outputs: 9 } }) },
        { custom_id: 'metadata', body: body({ metadata: { k: 5 } }) },
        { custom_id: 'fields', body: { prompt: 'p', colour: 'red' } },
        { custom_id: 'long', body: body({ prompt: 'x'.repeat(4001) }) },
        { custom_id: 'ok', body: body() },
      ),
    );
    const { lines, invalid } = await checks.check(read, context);
    expect(lines.map((l) => l.customId)).toEqual(['ok']);
    const byId = Object.fromEntries(invalid.map((p) => [p.customId, p]));
    expect(byId.unknown).toMatchObject({ line: 1, code: 'validation_error', message: 'body: model: unknown model "fox-9". See GET /api/v1/models.' });
    expect(byId.plan).toMatchObject({ line: 2, code: 'forbidden' });
    expect(byId.type.message).toMatch(/^body: /);
    expect(byId.input.message).toContain('input.num_outputs');
    expect(byId.metadata.message).toContain('metadata');
    expect(byId.fields).toMatchObject({ code: 'validation_error', message: 'body: colour: unknown field; model is required; type is required' });
    expect(byId.long.message).toBe('body: prompt must be at most 4000 characters');
  });

  it("takes uploads only for media (no outside fetch), and checks a line's own webhook_url against the policy", async () => {
    const read = readBatchFile(
      jsonl(
        { custom_id: 'url', body: body({ input: { image: 'https://example.com/a.png' } }) },
        { custom_id: 'hook', body: body({ webhook_url: 'http://127.0.0.1/x' }) },
        { custom_id: 'good-hook', body: body({ webhook_url: 'https://hooks.example.com/line' }) },
      ),
    );
    const { lines, invalid } = await checks.check(read, context);
    expect(invalid.map((p) => [p.customId, p.message])).toEqual([
      ['url', "body: input.image: a batch takes uploads only (an upload's id or URL, POST /api/v1/uploads); it does not fetch outside URLs"],
      ['hook', expect.stringMatching(/^body: webhook_url: /)],
    ]);
    expect(lines.map((l) => [l.customId, l.webhookUrl])).toEqual([['good-hook', 'https://hooks.example.com/line']]);
  });

  it('keeps the lines refused while reading (bad JSON, a duplicate) with their numbers', async () => {
    const read = readBatchFile(Buffer.from(`${JSON.stringify({ custom_id: 'a', body: body() })}\nnot json\n${JSON.stringify({ custom_id: 'a', body: body() })}`));
    const { lines, invalid } = await checks.check(read, context);
    expect(lines.map((l) => l.line)).toEqual([1]);
    expect(invalid).toEqual([
      { line: 2, customId: null, code: 'validation_error', message: 'not valid JSON' },
      { line: 3, customId: null, code: 'validation_error', message: 'custom_id "a" is used by line 1 already: each line needs its own' },
    ]);
    const refused = new BatchLinesRefused(invalid, 3);
    expect(refused.message).toBe("2 of the file's 3 lines are not valid; no batch was created. line 2: not valid JSON; line 3: custom_id \"a\" is used by line 1 already: each line needs its own.");
    expect(refused.lines).toEqual([
      { line: 2, custom_id: null, message: 'not valid JSON' },
      { line: 3, custom_id: null, message: 'custom_id "a" is used by line 1 already: each line needs its own' },
    ]);
  });
});

const valid = (line: number, prompt = 'p'): BatchLinePayload => ({
  line,
  customId: `c${line}`,
  model: 'm',
  prompt,
  type: 'TEXT_TO_IMAGE',
  input: {},
  metadata: {},
  credits: 1,
  minimumCredits: 1,
  webhookUrl: null,
});
const problem = (line: number): BatchLineProblemPayload => ({ line, customId: null, code: 'validation_error', message: 'not valid JSON' });

describe('chunkLines', () => {
  it('sends at most 500 lines a message, valid and invalid in line order', () => {
    const lines = Array.from({ length: 1200 }, (_, i) => i + 1).filter((n) => n % 10 !== 0).map((n) => valid(n));
    const invalid = Array.from({ length: 120 }, (_, i) => problem((i + 1) * 10));
    const chunks = chunkLines(lines, invalid);
    expect(chunks.map((c) => c.lines.length + c.invalid.length)).toEqual([500, 500, 200]);
    expect(chunks[0].invalid.map((p) => p.line)).toEqual(Array.from({ length: 50 }, (_, i) => (i + 1) * 10));
    expect(chunks[2].lines.at(-1)?.line).toBe(1199);
  });

  it('keeps each message under its byte budget', () => {
    const lines = Array.from({ length: 400 }, (_, i) => valid(i + 1, 'x'.repeat(4000)));
    const chunks = chunkLines(lines, []);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) expect(Buffer.byteLength(JSON.stringify(chunk))).toBeLessThan(MAX_LINES_MESSAGE_BYTES + 1024);
    expect(chunks.flatMap((c) => c.lines.map((l) => l.line))).toEqual(lines.map((l) => l.line));
  });
});

describe('BatchHandover', () => {
  const create = { batchId: 'b', accountId: 'a' } as CreateBatchRequest;

  it('says batches need a newer generation when nothing answers generation.batch.create', async () => {
    const subjects: string[] = [];
    const rpc = {
      request: (subject: string) => {
        subjects.push(subject);
        return Promise.reject(new NotDeliveredError(subject));
      },
    } as unknown as RpcClient;
    await expect(new BatchHandover(rpc).send(create, [valid(1)], [])).rejects.toMatchObject({ code: 'service_unavailable', message: BATCHES_NEED_NEWER_GENERATION });
    expect(new Set(subjects)).toEqual(new Set([Subjects.generationBatchCreate]));
  });

  it('sends create, the lines in chunks, then seal', async () => {
    const subjects: string[] = [];
    const rpc = { request: (subject: string) => (subjects.push(subject), Promise.resolve({})) } as unknown as RpcClient;
    await new BatchHandover(rpc).send(create, Array.from({ length: 501 }, (_, i) => valid(i + 1)), []);
    expect(subjects).toEqual([Subjects.generationBatchCreate, Subjects.generationBatchLines, Subjects.generationBatchLines, Subjects.generationBatchSeal]);
  });
});
