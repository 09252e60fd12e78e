import { DomainError, ValidationError } from '@gen/errors';
import { readBatchFile } from './batch-file';

const line = (customId: unknown, body: unknown = { model: 'm', prompt: 'p', type: 'TEXT_TO_IMAGE' }) => JSON.stringify({ custom_id: customId, body });
const file = (...rows: string[]) => Buffer.from(rows.join('\n'), 'utf8');

describe('readBatchFile', () => {
  it('reads one JSON object a line, numbered from 1', () => {
    const read = readBatchFile(file(line('a'), line('b')));
    expect(read.map((r) => [r.line, r.customId, r.problem])).toEqual([
      [1, 'a', null],
      [2, 'b', null],
    ]);
    expect(read[0].body).toEqual({ model: 'm', prompt: 'p', type: 'TEXT_TO_IMAGE' });
  });

  it('takes CRLF line ends, a UTF-8 byte order mark and blank lines at the end', () => {
    const content = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${line('a')}\r\n${line('b')}\r\n\r\n\n`, 'utf8')]);
    const read = readBatchFile(content);
    expect(read.map((r) => [r.customId, r.problem])).toEqual([
      ['a', null],
      ['b', null],
    ]);
  });

  it('refuses a line that is not JSON, or not an object, and keeps the others', () => {
    const read = readBatchFile(file(line('a'), '{"custom_id": "b", "body": {', '[1, 2]'));
    expect(read.map((r) => r.problem)).toEqual([null, 'not valid JSON', 'must be a JSON object ({"custom_id": ..., "body": {...}})']);
  });

  it('refuses a blank line within the file (the numbers stay those an editor shows)', () => {
    const read = readBatchFile(file(line('a'), '', line('c')));
    expect(read.map((r) => [r.line, r.customId, r.problem])).toEqual([
      [1, 'a', null],
      [2, null, 'a blank line: each line is one JSON object'],
      [3, 'c', null],
    ]);
  });

  it('refuses a missing, empty or too long custom_id', () => {
    const read = readBatchFile(file(JSON.stringify({ body: {} }), line(''), line('x'.repeat(65)), line(7), line('x'.repeat(64))));
    expect(read.map((r) => r.problem)).toEqual([
      'custom_id is required',
      'custom_id must be a string of 1 to 64 characters',
      'custom_id must be a string of 1 to 64 characters',
      'custom_id must be a string of 1 to 64 characters',
      null,
    ]);
  });

  it('refuses the second use of a custom_id, naming the line that used it first', () => {
    const read = readBatchFile(file(line('a'), line('b'), line('a')));
    expect(read[2]).toEqual({ line: 3, customId: null, body: null, problem: 'custom_id "a" is used by line 1 already: each line needs its own' });
    expect(read[0].problem).toBeNull();
  });

  it("takes OpenAI's method and url when they name POST /api/v1/generate, and no other field", () => {
    const body = { model: 'm', prompt: 'p', type: 'TEXT_TO_IMAGE' };
    const read = readBatchFile(
      file(
        JSON.stringify({ custom_id: 'a', method: 'POST', url: '/api/v1/generate', body }),
        JSON.stringify({ custom_id: 'b', method: 'GET', url: '/v1/chat/completions', body }),
        JSON.stringify({ custom_id: 'c', body, extra: 1 }),
        JSON.stringify({ custom_id: 'd' }),
        JSON.stringify({ custom_id: 'e', body: 'text' }),
      ),
    );
    expect(read.map((r) => r.problem)).toEqual([
      null,
      'method must be "POST"; url must be "/api/v1/generate"',
      'extra: unknown field',
      'body is required (what POST /api/v1/generate takes)',
      'body must be a JSON object (what POST /api/v1/generate takes)',
    ]);
    // A line refused for its fields keeps a custom_id it could read (the errors file names it).
    expect(read[1].customId).toBe('b');
  });

  it('refuses U+0000 in a body and nesting deeper than a request body may', () => {
    const deep = `{"custom_id": "d", "body": {"input": ${'['.repeat(40)}${']'.repeat(40)}}}`;
    const read = readBatchFile(file(line('n', { model: 'm', prompt: 'a\u0000b', type: 'TEXT_TO_IMAGE' }), deep));
    expect(read.map((r) => r.problem)).toEqual(['body contains U+0000, which cannot be stored', 'nested deeper than 32 levels']);
  });

  it('refuses a file with more lines than a batch holds (413) and one with none', () => {
    expect(() => readBatchFile(file(line('a'), line('b'), line('c')), 2)).toThrow(
      expect.objectContaining({ code: 'payload_too_large', message: 'A batch has at most 2 lines; this file has 3.' }) as DomainError,
    );
    expect(() => readBatchFile(file(line('a'), line('b')), 2)).not.toThrow();
    expect(() => readBatchFile(Buffer.from('\n\r\n'))).toThrow(ValidationError);
  });

  it('refuses a file that is not UTF-8', () => {
    expect(() => readBatchFile(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))).toThrow('The batch file is not UTF-8 text: send one JSON object a line, in UTF-8.');
  });
});
