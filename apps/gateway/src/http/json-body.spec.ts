import { checkJsonBody, findNulCharacter, MAX_JSON_DEPTH, mediaTypeParameter, nestsDeeperThan, refuseNulCharacters } from './json-body';

describe('JSON body checks (before JSON.parse)', () => {
  const nested = (levels: number) => Buffer.from('['.repeat(levels) + ']'.repeat(levels));

  it('counts nesting without recursion, up to and past the limit', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1), MAX_JSON_DEPTH)).toBe(true);
    expect(nestsDeeperThan(Buffer.from('{"a":'.repeat(200_000)), MAX_JSON_DEPTH)).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = `{"a":"${'['.repeat(100)}","b":"\\"{{{{\\\\","c":[[1]]}`;
    expect(JSON.parse(text)).toBeTruthy();
    expect(nestsDeeperThan(Buffer.from(text), 3)).toBe(false);
    expect(nestsDeeperThan(Buffer.from(text), 2)).toBe(true);
  });

  it('reads the charset parameter (quoted, any case) and accepts only UTF-8', () => {
    expect(mediaTypeParameter('application/json; Charset="UTF-8"', 'charset')).toBe('utf-8');
    expect(mediaTypeParameter('application/json;foo=bar; charset=latin1', 'charset')).toBe('latin1');
    expect(mediaTypeParameter('application/json', 'charset')).toBeUndefined();
    const body = Buffer.from('{}');
    expect(() => checkJsonBody('application/json; charset=utf8', body)).not.toThrow();
    expect(() => checkJsonBody(undefined, body)).not.toThrow();
    expect(() => checkJsonBody('application/json; charset=iso-8859-1', body)).toThrow(expect.objectContaining({ code: 'unsupported_media_type' }));
    expect(() => checkJsonBody('application/json; charset="a\u0001b"', body)).toThrow(/Unsupported charset that charset/);
  });

  it('refuses bytes that are not UTF-8 (a lone Latin-1 byte, an overlong encoding, a surrogate)', () => {
    for (const bytes of [[0x22, 0xe9, 0x22], [0x22, 0xc0, 0xaf, 0x22], [0x22, 0xed, 0xa0, 0x80, 0x22]]) {
      expect(() => checkJsonBody('application/json', Buffer.from(bytes))).toThrow(expect.objectContaining({ code: 'bad_request' }));
    }
    expect(() => checkJsonBody('application/json', Buffer.from('"café 🌍"'))).not.toThrow();
  });
});

describe('NUL characters', () => {
  it('names where the first one is, keys included', () => {
    expect(findNulCharacter({ prompt: 'a\u0000b' })).toBe('prompt');
    expect(findNulCharacter({ scopes: ['read', 'x\u0000'] })).toBe('scopes[1]');
    expect(findNulCharacter({ a: { 'b c': 'x\u0000' } })).toBe('a."b c"');
    expect(findNulCharacter({ 'k\u0000': 1 })).toBe('"k\\u0000"');
    expect(findNulCharacter('\u0000')).toBe('body');
    expect(findNulCharacter({ prompt: 'fine', n: 1, list: [null, true] })).toBeUndefined();
  });

  it('refuses one in the path, the query or the body with 422', () => {
    expect(() => refuseNulCharacters({ params: { id: '\u0000' } })).toThrow('id: must not contain the NUL character (\\u0000).');
    expect(() => refuseNulCharacters({ query: { cursor: ['a', 'b\u0000'] } })).toThrow(/^cursor\[1\]: /);
    expect(() => refuseNulCharacters({ body: { email: 'x\u0000@y' } })).toThrow(expect.objectContaining({ code: 'validation_error' }));
    expect(() => refuseNulCharacters({ params: {}, query: {}, body: undefined })).not.toThrow();
    // Keys and nested places too, as findNulCharacter names them.
    expect(() => refuseNulCharacters({ body: { 'k\u0000': 1 } })).toThrow(/^"k\\u0000": /);
    expect(() => refuseNulCharacters({ body: { a: { list: [{ deep: 'x\u0000' }] } } })).toThrow(/^a\.list\[0\]\.deep: /);
    expect(() => refuseNulCharacters({ body: { prompt: 'fine', n: 1, list: [null, true, { a: 'b' }] } })).not.toThrow();
  });
});
