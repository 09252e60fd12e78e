import { parseByteRange } from './byte-range';

describe('parseByteRange', () => {
  it.each([
    ['bytes=0-9', 100, { start: 0, end: 9 }],
    ['bytes=90-', 100, { start: 90, end: 99 }],
    ['bytes=-10', 100, { start: 90, end: 99 }],
    ['bytes=-1000', 100, { start: 0, end: 99 }],
    ['bytes=50-1000', 100, { start: 50, end: 99 }],
    ['bytes=99-99', 100, { start: 99, end: 99 }],
    [' bytes=1-2 ', 100, { start: 1, end: 2 }],
  ])('%s of %i bytes is %o', (header, size, range) => {
    expect(parseByteRange(header, size)).toEqual(range);
  });

  it.each([
    [undefined, 100],
    ['bytes=100-', 100], // starts past the end: unsatisfiable, the whole object instead
    ['bytes=5-4', 100],
    ['bytes=-0', 100],
    ['bytes=-', 100],
    ['bytes=0-1,5-6', 100], // several ranges: the whole object
    ['items=0-1', 100],
    ['bytes=a-b', 100],
    ['bytes=0-1', 0],
    ['bytes=99999999999999999999-', 100],
  ])('%s of %i bytes is the whole object', (header, size) => {
    expect(parseByteRange(header, size)).toBeNull();
  });
});
