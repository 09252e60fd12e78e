import { Inject, Injectable } from '@nestjs/common';
import { UnauthorizedError, ValidationError } from '@gen/errors';
import { MAX_PASSWORD_LENGTH, PasswordHasher } from '../users/password-hasher';
import { DASHBOARD_SETTINGS, DashboardSettings } from '../settings/dashboard.settings';
import type { ClientInfo } from './sessions.service';
import { throttleKeys } from './sessions.service';
import { SignInGate } from './sign-in-gate';
import { UsersRepository } from './users.repository';

/**
 * The password asked again before a change that guards the sign-in itself (turning two-factor on or
 * off): a session left open, or stolen, is not enough. Counted by the sign-in throttle per email and
 * per address, so it cannot be used to guess the password either.
 */
@Injectable()
export class PasswordCheck {
  private readonly hasher = new PasswordHasher();

  constructor(
    private readonly users: UsersRepository,
    private readonly gate: SignInGate,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  /** Refuses with `422 password: ...` unless `password` is the user's current one. */
  async assert(userId: string, password: string, client: ClientInfo): Promise<void> {
    const user = await this.users.findUserById(userId);
    if (!user) throw new UnauthorizedError('You are not signed in, or your session has ended. Sign in to continue.');
    const keys = throttleKeys(user.emailKey, client.ip);
    const policies = { [keys.email]: this.settings.throttle.email, [keys.address]: this.settings.throttle.address };
    await this.gate.admit(policies);
    const ok = await this.hasher.verify(password.slice(0, MAX_PASSWORD_LENGTH + 1), user.passwordHash);
    await this.gate.settle(policies, ok, keys.address);
    if (!ok) throw new ValidationError('password: This is not your current password.');
  }
}
