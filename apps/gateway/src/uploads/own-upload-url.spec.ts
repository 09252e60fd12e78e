import { ownUploadKey } from './own-upload-url';

describe('ownUploadKey: an upload URL on our content host, however its host is written', () => {
  const base = 'https://cdn.example.com/cdn';
  const key = 'uploads/ab/cdef.png';

  it.each([
    `https://cdn.example.com/cdn/${key}`,
    `https://CDN.Example.COM/cdn/${key}`,
    `https://cdn.example.com./cdn/${key}`,
    `https://cdn.example.com:443/cdn/${key}`,
    `HTTPS://cdn.example.com.:443/cdn/${key}`,
  ])('%s is ours', (value) => {
    expect(ownUploadKey(base, value)).toBe(key);
  });

  it.each([
    `https://cdn.example.com:8443/cdn/${key}`,
    `http://cdn.example.com/cdn/${key}`,
    `https://cdn.example.com.evil.example/cdn/${key}`,
    `https://cdn.example.com/other/${key}`,
    `https://user@cdn.example.com/cdn/${key}`,
    'not a url',
  ])('%s is not', (value) => {
    expect(ownUploadKey(base, value)).toBeNull();
  });

  it('a content base with a port and no path', () => {
    expect(ownUploadKey('http://127.0.0.1:8080', `http://127.0.0.1:8080/${key}`)).toBe(key);
  });
});
