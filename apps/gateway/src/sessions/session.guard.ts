import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AccessPolicyError, ForbiddenError, UnauthorizedError } from '@gen/errors';
import type { FastifyRequest } from 'fastify';
import { DASHBOARD_SETTINGS, DashboardSettings } from '../settings/dashboard.settings';
import type { MemberRole } from '../memberships/member-role';
import { ALLOWED_BEFORE_TWO_FACTOR } from './two-factor-enrollment.decorator';
import { assertRole, REQUIRED_ROLE } from './requires-role.decorator';
import { SessionCookies } from './session-cookies';
import { csrfTokensMatch, SessionsService } from './sessions.service';
import type { LiveSession } from './users.repository';

export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export type DashboardRequest = FastifyRequest & { dashboardSession?: LiveSession };

const csrfRefused = () => new ForbiddenError('This request is missing its security token (CSRF). Reload the page and try again.');
const crossSiteRefused = () => new ForbiddenError('This request came from another site and was refused. Use the dashboard itself.');

/**
 * A state-changing request must come from our own pages: a cross-site Sec-Fetch-Site or a foreign
 * Origin is refused before the token is even looked at. (Requests without these headers, from
 * older browsers or scripts, still need the token, which another site cannot read.)
 */
function assertSameOrigin(request: FastifyRequest, publicOrigin: string): void {
  if (request.headers['sec-fetch-site'] === 'cross-site') throw crossSiteRefused();
  const origin = request.headers.origin;
  if (origin === undefined) return;
  const own = `${request.protocol}://${request.host}`;
  if (origin !== publicOrigin && origin !== own) throw crossSiteRefused();
}

function presentedToken(request: FastifyRequest): string | undefined {
  const value = request.headers[CSRF_HEADER];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Dashboard API routes: a live session cookie, for every state-changing call the session's CSRF
 * token, and the role the route declares (@RequiresRole) on the session's account. While the
 * account requires two-factor sign-in and the user has not set it up, only the routes marked
 * AllowedBeforeTwoFactor answer (the pages send the user to the set-up).
 */
@Injectable()
export class DashboardSessionGuard implements CanActivate {
  constructor(
    private readonly sessions: SessionsService,
    private readonly cookies: SessionCookies,
    private readonly reflector: Reflector,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<DashboardRequest>();
    const needed = this.reflector.getAllAndOverride<MemberRole | undefined>(REQUIRED_ROLE, [context.getHandler(), context.getClass()]);
    // Fails closed: a route that forgot to say which role it needs is open to nobody.
    if (!needed) throw new Error(`dashboard route ${request.method} ${request.url} declares no @RequiresRole`);
    const session = await this.sessions.resolve(this.cookies.sessionToken(request));
    if (!session) throw new UnauthorizedError('You are not signed in, or your session has ended. Sign in to continue.');
    if (!SAFE_METHODS.has(request.method)) {
      assertSameOrigin(request, this.settings.publicOrigin);
      if (!csrfTokensMatch(presentedToken(request), session.csrfToken)) throw csrfRefused();
    }
    if (session.accountRequiresTwoFactor && !session.twoFactorEnabled && !this.reflector.get<boolean>(ALLOWED_BEFORE_TWO_FACTOR, context.getHandler())) {
      throw new AccessPolicyError('two_factor_enrollment_required', 'Your account requires two-factor sign-in: set it up (Settings, Account) before anything else.');
    }
    assertRole(session.role, needed);
    request.dashboardSession = session;
    return true;
  }
}

/**
 * Sign-in and sign-up: the token must match the anonymous CSRF cookie (double submit), or, for a
 * browser that is already signed in (signing in again, as someone else), its session's token.
 */
@Injectable()
export class AnonymousCsrfGuard implements CanActivate {
  constructor(
    private readonly sessions: SessionsService,
    private readonly cookies: SessionCookies,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<DashboardRequest>();
    assertSameOrigin(request, this.settings.publicOrigin);
    const presented = presentedToken(request);
    const anonymous = this.cookies.anonymousCsrfToken(request);
    if (anonymous && csrfTokensMatch(presented, anonymous)) return true;
    const session = await this.sessions.resolve(this.cookies.sessionToken(request));
    if (session && csrfTokensMatch(presented, session.csrfToken)) return true;
    throw csrfRefused();
  }
}

/** The signed-in session of a dashboard route (set by DashboardSessionGuard). */
export const CurrentSession = createParamDecorator((_: unknown, context: ExecutionContext): LiveSession => {
  const session = context.switchToHttp().getRequest<DashboardRequest>().dashboardSession;
  if (!session) throw new UnauthorizedError('Sign in to continue.');
  return session;
});
