import { plainName } from './plain-name';

describe('plainName: a typed name in a mail, as text that cannot be a link', () => {
  it.each([
    ['https://evil.example/x@a.b', 'https[:]//evil[.]example/x@a[.]b'],
    ['alice@example.com', 'alice@example[.]com'],
    ['www.evil.example', 'www[.]evil[.]example'],
    ['Acme Inc.', 'Acme Inc.'],
    ['Team\r\nBcc: x@y.z', 'Team Bcc: x@y[.]z'],
    ['Zero\u200bwidth', 'Zero width'],
  ])('%j reads %j', (input, expected) => {
    expect(plainName(input)).toBe(expected);
  });

  it('leaves a plain email address readable, and defangs one that holds a link', () => {
    expect(plainName('alice@example.com', 'email')).toBe('alice@example.com');
    expect(plainName('https://evil.example/x@a.b', 'email')).toBe('https[:]//evil[.]example/x@a[.]b');
  });

  it('caps the length', () => {
    expect(plainName('a'.repeat(300))).toHaveLength(100);
  });
});
