import { Injectable } from '@nestjs/common';
import { ForbiddenError, UnauthorizedError, ValidationError } from '@gen/errors';
import { AuditService } from '../audit-log/audit.service';
import { ClientInfo, hashSessionToken, newToken, SessionStarter, StartedSession } from './session-starter';
import { UsersRepository } from './users.repository';
import { TwoFactorCodes } from './two-factor-codes';
import { TwoFactorRepository } from './two-factor.repository';

/** How long the half-signed-in state between the password and the code lasts. */
export const CHALLENGE_TTL_SECONDS = 300;
/** Wrong codes one challenge takes before it ends (the password must be entered again). */
export const CHALLENGE_MAX_FAILURES = 5;

/** The password was right and the user has two-factor sign-in: answer `token` with a code. */
export interface TwoFactorChallenge {
  challenge: string;
  expiresInSeconds: number;
}

const EXPIRED = 'Your sign-in took too long or had too many wrong codes. Enter your email and password again.';

/**
 * The second step of sign-in for users with TOTP: a challenge (a random token, stored hashed, for
 * CHALLENGE_TTL_SECONDS) opened by the right password, answered by a TOTP or recovery code
 * (TwoFactorCodes: throttled, replay refused). The session starts only then.
 */
@Injectable()
export class TwoFactorSignInService {
  constructor(
    private readonly repository: TwoFactorRepository,
    private readonly codes: TwoFactorCodes,
    private readonly users: UsersRepository,
    private readonly starter: SessionStarter,
    private readonly audit: AuditService,
  ) {}

  async challenge(userId: string): Promise<TwoFactorChallenge> {
    const token = newToken();
    await this.repository.createChallenge(hashSessionToken(token), userId, CHALLENGE_TTL_SECONDS);
    return { challenge: token, expiresInSeconds: CHALLENGE_TTL_SECONDS };
  }

  async complete(challenge: string, code: string, client: ClientInfo, previousToken: string | undefined): Promise<StartedSession> {
    const tokenHash = hashSessionToken(challenge);
    const userId = await this.repository.findChallenge(tokenHash);
    const user = userId ? await this.repository.findUser(userId) : null;
    if (!user) throw new UnauthorizedError(EXPIRED);
    const actor = { kind: 'user' as const, userId: user.id, email: user.email, ip: client.ip };
    // The account the session opens, as for a sign-in without a second factor (the one last used).
    const accountId = await this.users.accountToOpen(user.id);
    const kind = await this.codes.check(user, code);
    if (kind === null) {
      const open = await this.repository.failChallenge(tokenHash, CHALLENGE_MAX_FAILURES);
      if (accountId) await this.audit.record({ accountId, actor, action: 'user.two_factor_failed', target: user.email });
      if (!open) throw new UnauthorizedError(EXPIRED);
      throw new ValidationError('code: This code is not right, or was used already. Enter the current code from your app, or a recovery code.');
    }
    // Single use: of two requests answering one challenge, one signs in.
    if (!(await this.repository.consumeChallenge(tokenHash))) throw new UnauthorizedError(EXPIRED);
    if (!accountId) throw new ForbiddenError('You are not a member of any account any more. Ask an owner or admin of your team to invite you again.');
    await this.users.recordSignIn(user.id, null);
    if (previousToken) await this.users.deleteSessionByTokenHash(hashSessionToken(previousToken));
    if (kind === 'recovery') {
      const left = await this.repository.unusedRecoveryCodes(user.id);
      await this.audit.record({ accountId, actor, action: 'user.recovery_code_used', target: user.email, details: { codes_left: left } });
    }
    await this.audit.record({ accountId, actor, action: 'user.signed_in', target: user.email, details: { second_factor: kind } });
    return this.starter.start({ userId: user.id, accountId }, client);
  }
}
