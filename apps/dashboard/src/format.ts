import type { GenerationType, JobStatus } from './api';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const time = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const number = new Intl.NumberFormat();

export function formatDate(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

/** Time of day with seconds: attempts of one delivery are seconds apart. */
export function formatTime(iso: string | null | undefined): string {
  return iso ? time.format(new Date(iso)) : '—';
}

export function formatNumber(value: number): string {
  return number.format(value);
}

export function credits(value: number): string {
  return `${number.format(value)} credit${value === 1 ? '' : 's'}`;
}

export const TYPE_LABELS: Record<GenerationType, string> = {
  TEXT_TO_IMAGE: 'Image',
  TEXT_TO_VIDEO: 'Video',
  TEXT_TO_AUDIO: 'Audio',
  TEXT_TO_3D: '3D model',
};

export const STATUS_LABELS: Record<JobStatus, string> = {
  queued: 'Queued',
  processing: 'Processing',
  completed: 'Completed',
  failed: 'Failed',
};

export function planLabel(plan: string): string {
  return plan.charAt(0).toUpperCase() + plan.slice(1);
}

export function shortId(id: string): string {
  return id.slice(0, 8);
}
