import { ValidationError } from '@gen/errors';

/** Longest `Cancel-After` accepted: a day. */
export const MAX_CANCEL_AFTER_SECONDS = 24 * 3600;
const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/**
 * `Cancel-After` as Replicate takes it: a duration of hours, minutes and seconds (`30s`, `5m`,
 * `1h30m`), or plain seconds (`45`). Absent: no deadline. Between 1 s and 24 h, else 422.
 */
export function parseCancelAfter(value: string | undefined): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  const message = `Cancel-After: "${text.slice(0, 40)}" is not a duration such as 30s, 5m or 1h30m (1 second to 24 hours).`;
  let seconds: number;
  if (/^\d{1,6}$/.test(text)) {
    seconds = Number(text);
  } else {
    const match = /^(?:(\d{1,3})h)?(?:(\d{1,5})m)?(?:(\d{1,6})s)?$/.exec(text);
    if (!match || text === '') throw new ValidationError(message);
    seconds = Number(match[1] ?? 0) * UNIT_SECONDS.h + Number(match[2] ?? 0) * UNIT_SECONDS.m + Number(match[3] ?? 0);
  }
  if (seconds < 1 || seconds > MAX_CANCEL_AFTER_SECONDS) throw new ValidationError(message);
  return seconds;
}
