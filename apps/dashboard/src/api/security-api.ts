/** The dashboard API's sign-up verification and two-factor calls (docs/guide/dashboard.md, "Two-factor sign-in"). */
import type { TwoFactorChallengeReply, TwoFactorStatus } from '@gen/contracts';
import { api, Session } from './api';

/** The password was right; sign-in ends with a code from the app (or a recovery code). */
export type TwoFactorChallenge = TwoFactorChallengeReply;
export type { TwoFactorStatus } from '@gen/contracts';

export function isChallenge(reply: Session | TwoFactorChallenge): reply is TwoFactorChallenge {
  return (reply as TwoFactorChallenge).two_factor_required === true;
}

export const securityApi = {
  signIn: (email: string, password: string) => api<Session | TwoFactorChallenge>('POST', '/sign-in', { email, password }),
  signInWithCode: (challenge: string, code: string) => api<Session>('POST', '/sign-in/two-factor', { challenge, code }),
  verifyEmail: (token: string) => api<{ email_verified: true; email: string }>('POST', '/email-verification/verify', { token }),
  resendVerification: () => api<{ message: string }>('POST', '/email-verification/resend'),
  twoFactor: () => api<TwoFactorStatus>('GET', '/two-factor'),
  beginTwoFactor: () => api<{ secret: string; otpauth_uri: string }>('POST', '/two-factor/enrollment'),
  /** Turning two-factor on or off asks for the password again. */
  confirmTwoFactor: (code: string, password: string) => api<{ recovery_codes: string[] }>('POST', '/two-factor/enrollment/confirm', { code, password }),
  disableTwoFactor: (code: string, password: string) => api<void>('POST', '/two-factor/disable', { code, password }),
  renewRecoveryCodes: (code: string) => api<{ recovery_codes: string[] }>('POST', '/two-factor/recovery-codes', { code }),
  requireTwoFactor: (required: boolean) => api<{ required: boolean }>('PUT', '/account/two-factor-requirement', { required }),
};
