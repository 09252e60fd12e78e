/** Reads a Cookie header into name -> value (the first of duplicate names wins, as browsers send the most specific first). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  if (!header) return cookies;
  for (const part of header.split(';')) {
    const index = part.indexOf('=');
    if (index <= 0) continue;
    const name = part.slice(0, index).trim();
    let value = part.slice(index + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    if (!cookies.has(name)) cookies.set(name, value);
  }
  return cookies;
}

export interface CookieOptions {
  /** Seconds; 0 deletes the cookie. */
  maxAgeSeconds: number;
  secure: boolean;
  sameSite: 'Lax' | 'Strict';
}

const TOKEN = /^[A-Za-z0-9_-]*$/;

/** A Set-Cookie value for the dashboard's own cookies: always httpOnly, Path=/, values base64url. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  if (!/^[A-Za-z0-9_-]+$/.test(name) || !TOKEN.test(value)) throw new Error('cookie name or value outside the safe alphabet');
  const parts = [`${name}=${value}`, 'Path=/', `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`, 'HttpOnly', `SameSite=${options.sameSite}`];
  if (options.maxAgeSeconds <= 0) parts.push('Expires=Thu, 01 Jan 1970 00:00:00 GMT');
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/**
 * Cookie names. Over https the `__Host-` prefix makes the browser refuse them unless they are
 * Secure, host-only and Path=/, so a sibling subdomain cannot plant or shadow them.
 */
export function cookieNames(secure: boolean): { session: string; csrf: string } {
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}gs_session`, csrf: `${prefix}gs_csrf` };
}
