import { ValidationError } from '@gen/errors';
import { parseCancelAfter } from './cancel-after';

describe('parseCancelAfter', () => {
  it.each([
    ['30s', 30],
    ['5m', 300],
    ['1h30m', 5400],
    ['1h', 3600],
    ['2m5s', 125],
    ['45', 45],
    [' 10s ', 10],
    ['24h', 86400],
  ])('%s is %i seconds', (value, seconds) => {
    expect(parseCancelAfter(value)).toBe(seconds);
  });

  it('is null when absent', () => {
    expect(parseCancelAfter(undefined)).toBeNull();
  });

  it.each(['', '0', '0s', '25h', '86401', 'soon', '5 m', '-5s', '1.5m', 'm', '1d', '30S'])('refuses %j with a 422', (value) => {
    expect(() => parseCancelAfter(value)).toThrow(ValidationError);
    expect(() => parseCancelAfter(value)).toThrow('Cancel-After');
  });
});
