import { DashboardClient, TEST_PASSWORD, testEmail } from './dashboard-client';
import type { SmtpSink } from './smtp-sink';
import type { StandaloneHarness } from './standalone-harness';

/** Accounts with members for dashboard specs: an operator-made account, invitations followed from the mail. */
export class Teams {
  private address = 0;

  constructor(
    private readonly h: StandaloneHarness,
    private readonly smtp: SmtpSink,
    /** The first three octets of the client addresses (X-Forwarded-For) this spec's clients use. */
    private readonly net: string,
  ) {}

  client(): DashboardClient {
    return new DashboardClient(this.h.url, { 'x-forwarded-for': `${this.net}.${++this.address % 250}` });
  }

  /** An account made by an operator, its owner signed in. */
  async team(label = 'team') {
    const created = await this.h.running.provisioning.createAccountWithSignIn(`${label} ${++this.address}`, testEmail(label), 'pro', 1000);
    if (!created) throw new Error('account not created');
    const owner = this.client();
    const signedIn = await owner.signIn(created.email, created.password);
    if (signedIn.status !== 200) throw new Error(`owner sign-in: ${signedIn.status}`);
    return { owner, accountId: created.accountId, email: created.email };
  }

  /** Invites an address and returns the token of the link in the mail it receives. */
  async invite(by: DashboardClient, email: string, role: string): Promise<string> {
    const before = (await this.smtp.mailsTo(email, 0, 0)).length;
    const res = await by.request('POST', '/members/invitations', { body: { email, role } });
    if (res.status !== 201) throw new Error(`invite: ${res.status} ${JSON.stringify(res.body)}`);
    const mails = await this.smtp.mailsTo(email, before + 1);
    return new URL(mails[mails.length - 1].links[0]).searchParams.get('token') as string;
  }

  /** A new person accepts by choosing a password; returns their signed-in client. */
  async join(by: DashboardClient, role: string) {
    const email = testEmail(role);
    const token = await this.invite(by, email, role);
    const c = this.client();
    await c.session();
    const res = await c.request('POST', '/invitations/accept-sign-up', { body: { token, password: TEST_PASSWORD } });
    if (res.status !== 201) throw new Error(`accept: ${res.status} ${JSON.stringify(res.body)}`);
    c.csrf = res.body.csrf_token;
    return { c, email, userId: res.body.user.id as string };
  }
}
