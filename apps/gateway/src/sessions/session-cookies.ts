import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DASHBOARD_SETTINGS, DashboardSettings } from '../settings/dashboard.settings';
import { cookieNames, parseCookies, serializeCookie } from './cookies';

/** Anonymous CSRF cookie lifetime: long enough for a sign-in form left open, short enough to rotate. */
const ANONYMOUS_CSRF_MAX_AGE_SECONDS = 24 * 3600;

/**
 * The dashboard's two cookies: the session token, and before sign-in, the anonymous CSRF token
 * (double submit: the page sends it back in X-CSRF-Token). Both httpOnly and SameSite=Lax; Secure
 * and `__Host-` named when the public URL is https.
 */
@Injectable()
export class SessionCookies {
  private readonly names: { session: string; csrf: string };

  constructor(@Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings) {
    this.names = cookieNames(settings.secureCookies);
  }

  sessionToken(request: FastifyRequest): string | undefined {
    return parseCookies(request.headers.cookie).get(this.names.session);
  }

  anonymousCsrfToken(request: FastifyRequest): string | undefined {
    const value = parseCookies(request.headers.cookie).get(this.names.csrf);
    return value && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
  }

  setSession(reply: FastifyReply, token: string, maxAgeSeconds: number): void {
    this.append(reply, serializeCookie(this.names.session, token, this.options(maxAgeSeconds)));
    // The anonymous token has done its job; the session carries its own.
    this.append(reply, serializeCookie(this.names.csrf, '', this.options(0)));
  }

  clearSession(reply: FastifyReply): void {
    this.append(reply, serializeCookie(this.names.session, '', this.options(0)));
  }

  setAnonymousCsrf(reply: FastifyReply, token: string): void {
    this.append(reply, serializeCookie(this.names.csrf, token, this.options(ANONYMOUS_CSRF_MAX_AGE_SECONDS)));
  }

  private options(maxAgeSeconds: number) {
    return { maxAgeSeconds, secure: this.settings.secureCookies, sameSite: 'Lax' as const };
  }

  /** Fastify adds each Set-Cookie to the ones already set (it never replaces them). */
  private append(reply: FastifyReply, cookie: string): void {
    void reply.header('set-cookie', cookie);
  }
}
