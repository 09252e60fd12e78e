import { JsonlParser } from './jsonl.js';

describe('JsonlParser', () => {
  it('reads lines split anywhere, with LF or CRLF, skipping blank lines, and a last line without a break', () => {
    const text = '{"line":1}\r\n\n{"line":2,"s":"a\\nb"}\n  \n{"line":3}';
    const parser = new JsonlParser<{ line: number }>();
    const values = [...text].flatMap((char) => parser.push(char));
    expect(values.map((v) => v.line)).toEqual([1, 2]);
    expect(parser.end()).toEqual([{ line: 3 }]);
    expect(parser.end()).toEqual([]);
  });

  it('throws on a line that is not JSON', () => {
    expect(() => new JsonlParser().push('{"line":\n')).toThrow(SyntaxError);
  });
});
