import { PassThrough } from 'node:stream';
import { defaultLogDestination, prettyLine } from './pretty';

describe('readable log lines', () => {
  it('puts time, level, context and message first, then the other fields, and an error with its stack', () => {
    const line = JSON.stringify({ level: 'warn', time: '2026-11-23T19:26:39.123Z', service: 'gateway', context: 'Jobs', msg: 'slow', jobId: 'j1', note: 'two words' });
    expect(prettyLine(line)).toBe('19:26:39 WARN  [Jobs] slow  jobId=j1 note="two words"');
    const withError = prettyLine(JSON.stringify({ level: 'error', time: '2026-11-23T19:26:39.123Z', msg: 'failed', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x' } }));
    expect(withError).toBe('19:26:39 ERROR failed  err="Error: boom"\nError: boom\n    at x');
    expect(prettyLine('not json')).toBe('not json');
  });

  it('is chosen for a terminal, JSON otherwise, and LOG_FORMAT overrides the guess', () => {
    const terminal = Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.WriteStream;
    const pipe = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    expect(defaultLogDestination({}, terminal)).toBeDefined();
    expect(defaultLogDestination({}, pipe)).toBeUndefined();
    expect(defaultLogDestination({ LOG_FORMAT: 'json' }, terminal)).toBeUndefined();
    expect(defaultLogDestination({ LOG_FORMAT: 'pretty' }, pipe)).toBeDefined();
  });
});
