/** The longest email address the dashboard takes (RFC 5321's path limit). */
export const MAX_EMAIL_LENGTH = 254;

/** Whether the dashboard takes this (trimmed) text as an email address: something, @, a domain with a dot. */
export function isEmailAddress(email: string): boolean {
  return email.length <= MAX_EMAIL_LENGTH && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
}
