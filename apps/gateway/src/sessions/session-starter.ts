import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { DASHBOARD_SETTINGS, DashboardSettings } from '../settings/dashboard.settings';
import { LiveSession, UsersRepository } from './users.repository';

export interface ClientInfo {
  ip: string;
  userAgent: string | null;
}

/** A new session: the cookie's token (never stored) and what the page needs. */
export interface StartedSession {
  token: string;
  maxAgeSeconds: number;
  session: LiveSession;
}

export function hashSessionToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Opens a session once sign-up or sign-in (with its second factor, if any) succeeded. */
@Injectable()
export class SessionStarter {
  constructor(
    private readonly users: UsersRepository,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  async start(owner: { userId: string; accountId: string }, client: ClientInfo): Promise<StartedSession> {
    const token = newToken();
    const ttl = this.settings.sessionTtlSeconds;
    await this.users.insertSession({
      id: randomUUID(),
      tokenHash: hashSessionToken(token),
      userId: owner.userId,
      accountId: owner.accountId,
      csrfToken: newToken(),
      expiresAt: new Date(Date.now() + ttl * 1000),
      ip: client.ip.slice(0, 100),
      userAgent: client.userAgent?.slice(0, 500) ?? null,
    });
    const session = await this.users.findLiveSession(hashSessionToken(token), this.settings.sessionIdleSeconds);
    if (!session) throw new Error('session vanished right after it was created');
    return { token, maxAgeSeconds: ttl, session };
  }
}
