import { ValidationError } from '@gen/errors';
import { MAX_PASSWORD_LENGTH } from './password-hasher';

export const MIN_NEW_PASSWORD_LENGTH = 10;

/** Refuses a new password that breaks the dashboard's rules, naming `field` in the message. */
export function assertNewPassword(field: string, password: string, emailKey: string): void {
  if (password.length < MIN_NEW_PASSWORD_LENGTH) throw new ValidationError(`${field}: Use at least ${MIN_NEW_PASSWORD_LENGTH} characters.`);
  if (password.length > MAX_PASSWORD_LENGTH) throw new ValidationError(`${field}: Use at most ${MAX_PASSWORD_LENGTH} characters.`);
  if (password.trim().toLowerCase() === emailKey) throw new ValidationError(`${field}: Do not use your email address as your password.`);
}
