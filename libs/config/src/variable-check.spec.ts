import { Rule } from '@gen/contracts';
import { between, compileCheck, rule } from './variable-check';

const collect = <T>(parse: (text: string, problem: (message: string) => void) => T | undefined, text: string) => {
  const problems: string[] = [];
  return { value: parse(text, (message) => problems.push(message)), problems };
};

describe('compileCheck', () => {
  const percent = compileCheck('TEST_PERCENT', {
    read: (text) => (/^\d+$/.test(text) ? Number(text) : text),
    rules: [rule('int', (value) => typeof value === 'number', 'must be a whole number (got "$value")'), between({ min: 0, max: 100 })],
    finish: (value: number) => value / 100,
  });

  it('reads, checks and finishes a value', () => {
    expect(collect(percent, '25')).toEqual({ value: 0.25, problems: [] });
  });

  it("reports the first listed rule that fails, naming the variable and what it got", () => {
    expect(collect(percent, 'half')).toEqual({ value: undefined, problems: ['TEST_PERCENT must be a whole number (got "half")'] });
    expect(collect(percent, '150')).toEqual({ value: undefined, problems: ['TEST_PERCENT must be between 0 and 100 (got 150)'] });
  });

  it('takes any class-validator rule, and a value without rules as it reads', () => {
    const word = compileCheck('TEST_WORD', { rules: [Rule('lower', (value) => value === String(value).toLowerCase(), 'must be lower case')] });
    expect(collect(word, 'Loud').problems).toEqual(['TEST_WORD must be lower case']);
    expect(collect(compileCheck('TEST_ANY', { read: (text) => text.length }), 'four').value).toBe(4);
  });
});
