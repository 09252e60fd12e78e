/**
 * A browser-like client of the dashboard's JSON API for end-to-end tests: keeps cookies (as a
 * browser would, honouring Max-Age=0), and sends the CSRF token the session endpoint hands out.
 */
export interface DashboardResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  setCookies: string[];
}

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(
    readonly baseUrl: string,
    /** Extra headers on every request (e.g. X-Forwarded-For to act as another client address). */
    readonly defaultHeaders: Record<string, string> = {},
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    options: { body?: unknown; csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<DashboardResult<T>> {
    const headers: Record<string, string> = { ...this.defaultHeaders, ...(options.headers ?? {}) };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (method !== 'GET' && csrf !== null) headers['x-csrf-token'] = csrf;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${this.baseUrl}/dashboard/api${path}`, { method, headers, body, redirect: 'manual' });
    const setCookies = response.headers.getSetCookie();
    for (const cookie of setCookies) {
      const [pair, ...attributes] = cookie.split(';').map((part) => part.trim());
      const index = pair.indexOf('=');
      const name = pair.slice(0, index);
      const value = pair.slice(index + 1);
      if (attributes.some((a) => /^max-age=0$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, setCookies };
  }

  /** GET /session, keeping its CSRF token (anonymous or the session's). */
  async session(): Promise<DashboardResult> {
    const result = await this.request('GET', '/session');
    this.csrf = result.body.csrf_token;
    return result;
  }

  async signUp(email: string, password: string): Promise<DashboardResult> {
    if (!this.csrf) await this.session();
    const result = await this.request('POST', '/sign-up', { body: { email, password } });
    if (result.status === 201) this.csrf = result.body.csrf_token;
    return result;
  }

  async signIn(email: string, password: string): Promise<DashboardResult> {
    if (!this.csrf) await this.session();
    const result = await this.request('POST', '/sign-in', { body: { email, password } });
    // A user with two-factor sign-in gets a challenge, not a session (and no new CSRF token) yet.
    if (result.status === 200 && result.body.csrf_token) this.csrf = result.body.csrf_token;
    return result;
  }

  /** Sign-in's second step: the challenge from signIn() and a TOTP or recovery code. */
  async signInWithCode(challenge: string, code: string): Promise<DashboardResult> {
    const result = await this.request('POST', '/sign-in/two-factor', { body: { challenge, code } });
    if (result.status === 200) this.csrf = result.body.csrf_token;
    return result;
  }
}

let counter = 0;
/** A unique email for a test user. */
export function testEmail(label = 'user'): string {
  counter += 1;
  return `${label}-${Date.now().toString(36)}-${counter}@example.com`;
}

export const TEST_PASSWORD = 'correct horse battery staple';
