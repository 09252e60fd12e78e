import { GUARDS_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { dashboardParts } from '../dashboard.parts';
import { DEFAULT_THROTTLE, DashboardSettings } from '../settings/dashboard.settings';
import { REQUIRED_ROLE } from './requires-role.decorator';
import { DashboardSessionGuard } from './session.guard';

const settings = { throttle: DEFAULT_THROTTLE } as unknown as DashboardSettings;

/** Every route of every dashboard controller, with its guards and the role it declares. */
function routes() {
  return dashboardParts(settings).controllers.flatMap((controller) => {
    const classGuards = (Reflect.getMetadata(GUARDS_METADATA, controller) ?? []) as unknown[];
    const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
    const prototype = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype)
      .filter((name) => name !== 'constructor')
      .map((name) => prototype[name])
      .filter((handler): handler is object => typeof handler === 'function' && Reflect.getMetadata(PATH_METADATA, handler) !== undefined)
      .map((handler) => ({
        route: `${RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number]} ${`/${base}/${Reflect.getMetadata(PATH_METADATA, handler) as string}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1')}`,
        signedIn: [...classGuards, ...((Reflect.getMetadata(GUARDS_METADATA, handler) ?? []) as unknown[])].includes(DashboardSessionGuard),
        role: (Reflect.getMetadata(REQUIRED_ROLE, handler) ?? Reflect.getMetadata(REQUIRED_ROLE, controller)) as string | undefined,
      }));
  });
}

describe('dashboard routes and roles', () => {
  it('declare the role every signed-in route needs (the guard refuses a route without one)', () => {
    const signedIn = routes().filter((r) => r.signedIn);
    expect(signedIn.length).toBeGreaterThan(30);
    expect(signedIn.filter((r) => r.role === undefined).map((r) => r.route)).toEqual([]);
  });

  it('keep member management, audit, webhooks, secrets and caps to admins, and ownership to owners', () => {
    const role = Object.fromEntries(routes().map((r) => [r.route, r.role]));
    expect(role['GET /dashboard/api/audit']).toBe('admin');
    expect(role['GET /dashboard/api/audit/entries.csv']).toBe('admin');
    expect(role['POST /dashboard/api/members/invitations']).toBe('admin');
    expect(role['PUT /dashboard/api/members/:userId/role']).toBe('admin');
    expect(role['POST /dashboard/api/members/transfer-ownership']).toBe('owner');
    expect(role['PUT /dashboard/api/keys/:id/caps']).toBe('admin');
    expect(role['POST /dashboard/api/keys/:id/webhook-secret']).toBe('admin');
    expect(role['POST /dashboard/api/keys']).toBe('developer');
    expect(role['POST /dashboard/api/keys/:id/generate']).toBe('developer');
    expect(role['GET /dashboard/api/usage/ledger']).toBe('viewer');
    // Requiring two-factor sign-in of every member is the owners'; a member's own second factor is theirs, whatever their role.
    expect(role['PUT /dashboard/api/account/two-factor-requirement']).toBe('owner');
    expect(role['POST /dashboard/api/two-factor/enrollment']).toBe('viewer');
    expect(role['POST /dashboard/api/two-factor/disable']).toBe('viewer');
    expect(role['POST /dashboard/api/email-verification/resend']).toBe('viewer');
    // Billing (payments/): admins see it, only owners pay or open the card portal.
    expect(role['GET /dashboard/api/billing']).toBe('admin');
    expect(role['GET /dashboard/api/billing/purchases']).toBe('admin');
    expect(role['GET /dashboard/api/billing/invoices']).toBe('admin');
    expect(role['POST /dashboard/api/billing/checkout']).toBe('owner');
    expect(role['POST /dashboard/api/billing/portal']).toBe('owner');
    expect(role['POST /dashboard/api/billing/subscription']).toBe('owner');
    expect(role['GET /dashboard/api/billing/top-up']).toBe('admin');
    expect(role['PUT /dashboard/api/billing/top-up']).toBe('owner');
  });
});
