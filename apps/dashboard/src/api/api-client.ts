/** The dashboard's calls to /dashboard/api: the session's CSRF token, the error envelope as ApiError, 401 as signed out. */

/** An error answer. `field` is set when the message names a form field ("email: ..."). */
export class ApiError extends Error {
  readonly field: string | null;
  readonly detail: string;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    const first = message.split('; ')[0];
    const match = /^([a-z_]+): (.+)$/s.exec(first);
    this.field = match ? match[1] : null;
    this.detail = match ? match[2] : message;
  }
}

let csrfToken = '';
let onSignedOut: () => void = () => undefined;

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Called when any call answers 401: the session has ended, the app shows the sign-in page. */
export function onUnauthorized(handler: () => void): void {
  onSignedOut = handler;
}

export function api<T>(
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<T> {
  const headers: Record<string, string> = { ...extraHeaders };
  if (body !== undefined) headers['content-type'] = 'application/json';
  return send<T>(method, path, body === undefined ? undefined : JSON.stringify(body), headers);
}

/** A file as the body, with its own media type (the playground's uploads). */
export function uploadFile<T>(path: string, file: File): Promise<T> {
  return send<T>('POST', path, file, { 'content-type': file.type || 'application/octet-stream' });
}

async function send<T>(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body: BodyInit | undefined, extraHeaders: Record<string, string>): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(`/dashboard/api${path}`, { method, headers, body, credentials: 'same-origin' });
  } catch {
    throw new ApiError(0, 'network_error', 'The server could not be reached. Check your connection and try again.');
  }
  if (response.status === 204) return undefined as T;
  const data: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const error = (data as { error?: { code?: string; message?: string } } | null)?.error;
    const retry = Number(response.headers.get('retry-after'));
    const failure = new ApiError(
      response.status,
      error?.code ?? 'internal_error',
      error?.message ?? `The request failed (HTTP ${response.status}).`,
      Number.isFinite(retry) && retry > 0 ? retry : null,
    );
    const isSessionCall =
      path === '/sign-in' || path === '/sign-in/two-factor' || path === '/email-verification/verify' || path === '/sign-up' || path === '/session' || path.startsWith('/password-reset') || (path.startsWith('/invitations/') && path !== '/invitations/accept');
    if (response.status === 401 && !isSessionCall) onSignedOut();
    throw failure;
  }
  return data as T;
}
