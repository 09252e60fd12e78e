import { Inject, Injectable } from '@nestjs/common';
import { WebhookSecretCipher } from '../auth/webhook-secret-cipher';
import { DASHBOARD_SETTINGS, DashboardSettings } from '../settings/dashboard.settings';
import { SignInGate } from './sign-in-gate';
import { hashRecoveryCode, isTotpCode, totpStep } from './totp';
import { TwoFactorRepository, TwoFactorUser } from './two-factor.repository';

/** How a code was accepted, or `null`: wrong, replayed, or a recovery code used already. */
export type CodeKind = 'totp' | 'recovery' | null;

/**
 * Checks a second-factor code for a user, wherever one is asked (sign-in, turning two-factor off,
 * renewing recovery codes): counted per user by the sign-in throttle (`totp:<user id>`, the
 * per-email policy: delays, then a lock), a TOTP code accepted once (its time step must be later
 * than the last accepted), a recovery code once.
 */
@Injectable()
export class TwoFactorCodes {
  constructor(
    private readonly repository: TwoFactorRepository,
    private readonly gate: SignInGate,
    private readonly cipher: WebhookSecretCipher,
    @Inject(DASHBOARD_SETTINGS) private readonly settings: DashboardSettings,
  ) {}

  /** The TOTP secret in clear. The user id is the associated data: a secret copied onto another user's row does not decrypt. */
  secretOf(user: { id: string; totpSecret: string }): string {
    return this.cipher.decrypt(user.totpSecret, `totp:${user.id}`);
  }

  encryptSecret(userId: string, secret: string): string {
    return this.cipher.encrypt(secret, `totp:${userId}`);
  }

  async check(user: TwoFactorUser, code: string): Promise<CodeKind> {
    const policies = { [`totp:${user.id}`]: this.settings.throttle.email };
    await this.gate.admit(policies);
    const kind = await this.accept(user, code.trim().slice(0, 100));
    await this.gate.settle(policies, kind !== null);
    return kind;
  }

  private async accept(user: TwoFactorUser, code: string): Promise<CodeKind> {
    if (!user.enabled || !user.totpSecret) return null;
    if (isTotpCode(code)) {
      const step = totpStep(this.secretOf({ id: user.id, totpSecret: user.totpSecret }), code);
      return step !== null && (await this.repository.acceptStep(user.id, step)) ? 'totp' : null;
    }
    return (await this.repository.useRecoveryCode(user.id, hashRecoveryCode(user.id, code))) ? 'recovery' : null;
  }
}
