import type { UpstreamCheck, UpstreamPending } from '../ports/engine';

/** What a check of a pending upstream job read (progress, queue position), as a park stores it; nothing for an ended one. */
export function pending(check: UpstreamCheck): UpstreamPending {
  if (check.ended) return {};
  const read: UpstreamPending = {};
  if (check.progress !== undefined && Number.isFinite(check.progress)) read.progress = Math.min(1, Math.max(0, check.progress));
  if (check.queuePosition !== undefined && Number.isInteger(check.queuePosition) && check.queuePosition >= 0) read.queuePosition = check.queuePosition;
  return read;
}
