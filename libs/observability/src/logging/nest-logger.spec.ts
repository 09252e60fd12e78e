import { Logger } from '@nestjs/common';
import { Writable } from 'node:stream';
import type { LevelWithSilent } from 'pino';
import { createPinoLogger } from './logger';
import { NestPinoLogger } from './nest-logger';

function capture(level: LevelWithSilent = 'info') {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  const nest = new NestPinoLogger(createPinoLogger({ service: 'svc', level, destination: stream }));
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((l) => l)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { nest, lines };
}

const API_KEY = 'gsk_live_' + 'Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF';

describe("Nest's logger on pino", () => {
  afterEach(() => Logger.overrideLogger(false));

  it('writes what `new Logger(context)` is given as one line: context, fields, message', () => {
    const { nest, lines } = capture();
    Logger.overrideLogger(nest);
    const logger = new Logger('Jobs');
    logger.warn({ jobId: 'j1', attempt: 2 }, 'retrying');
    logger.log('plain text');
    logger.error(new Error('exploded'));
    expect(lines()).toEqual([
      expect.objectContaining({ level: 'warn', service: 'svc', context: 'Jobs', jobId: 'j1', attempt: 2, msg: 'retrying' }),
      expect.objectContaining({ level: 'info', context: 'Jobs', msg: 'plain text' }),
      expect.objectContaining({ level: 'error', context: 'Jobs', err: expect.objectContaining({ type: 'Error', message: 'exploded' }) }),
    ]);
  });

  it("keeps the stack of Nest's own exception handlers (message, stack, context)", () => {
    const { nest, lines } = capture();
    nest.error('Unhandled thing', 'Error: Unhandled thing\n    at somewhere (file.ts:1:1)', 'ExceptionsHandler');
    expect(lines()[0]).toMatchObject({
      level: 'error',
      context: 'ExceptionsHandler',
      err: { message: 'Unhandled thing', stack: 'Error: Unhandled thing\n    at somewhere (file.ts:1:1)' },
    });
  });

  it("hides Nest's start-up chatter unless the level is debug", () => {
    const quiet = capture('info');
    quiet.nest.log('Mapped {/api/v1/models, GET} route', 'RouterExplorer');
    quiet.nest.log('Nest application successfully started', 'NestApplication');
    quiet.nest.warn('A start-up warning is shown', 'NestApplication');
    expect(quiet.lines().map((l) => l.msg)).toEqual(['A start-up warning is shown']);
    const verbose = capture('debug');
    verbose.nest.log('Mapped {/api/v1/models, GET} route', 'RouterExplorer');
    expect(verbose.lines()).toHaveLength(1);
  });

  it('redacts what services pass it: secret fields and credential-shaped strings', () => {
    const { nest, lines } = capture();
    nest.warn({ apiKey: API_KEY, nested: { detail: `refused ${API_KEY}` } }, `key ${API_KEY} refused`, 'Auth');
    const text = JSON.stringify(lines());
    expect(text).not.toContain(API_KEY);
    expect(lines()[0]).toMatchObject({ apiKey: '[redacted]', msg: 'key [redacted] refused' });
  });

  it('writes nothing, and builds nothing, below the level', () => {
    const { nest, lines } = capture('warn');
    nest.log({ big: 'object' }, 'ignored', 'Ctx');
    nest.debug('ignored too', 'Ctx');
    nest.verbose('and this', 'Ctx');
    expect(lines()).toEqual([]);
  });
});
