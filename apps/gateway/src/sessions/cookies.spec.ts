import { cookieNames, parseCookies, serializeCookie } from './cookies';

describe('cookies', () => {
  it('parses a Cookie header, keeping the first of duplicate names', () => {
    const cookies = parseCookies('a=1; gs_session=abc_-9; b="quoted"; gs_session=later; junk; =x');
    expect(cookies.get('gs_session')).toBe('abc_-9');
    expect(cookies.get('b')).toBe('quoted');
    expect(cookies.get('a')).toBe('1');
    expect(parseCookies(undefined).size).toBe(0);
  });

  it('writes httpOnly, SameSite, Path=/ cookies, Secure only when asked', () => {
    expect(serializeCookie('gs_session', 'tok', { maxAgeSeconds: 60, secure: false, sameSite: 'Lax' })).toBe(
      'gs_session=tok; Path=/; Max-Age=60; HttpOnly; SameSite=Lax',
    );
    const secure = serializeCookie('__Host-gs_session', 'tok', { maxAgeSeconds: 60, secure: true, sameSite: 'Lax' });
    expect(secure).toContain('; Secure');
    expect(serializeCookie('gs_session', '', { maxAgeSeconds: 0, secure: false, sameSite: 'Lax' })).toContain('Max-Age=0; HttpOnly');
  });

  it('refuses values that could inject attributes', () => {
    expect(() => serializeCookie('gs_session', 'a; Domain=evil', { maxAgeSeconds: 1, secure: false, sameSite: 'Lax' })).toThrow();
  });

  it('uses __Host- names over https only', () => {
    expect(cookieNames(true)).toEqual({ session: '__Host-gs_session', csrf: '__Host-gs_csrf' });
    expect(cookieNames(false)).toEqual({ session: 'gs_session', csrf: 'gs_csrf' });
  });
});
