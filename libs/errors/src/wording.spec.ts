import { secondsText } from './wording';

describe('secondsText', () => {
  it.each([
    [1, '1 second'],
    [0, '0 seconds'],
    [2, '2 seconds'],
    [60, '60 seconds'],
  ])('%i is "%s"', (n, text) => expect(secondsText(n)).toBe(text));
});
