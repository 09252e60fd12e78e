import type { GenerationType, JobStatus } from '../api/api';

// Seconds matter here: a job's stages and a delivery's attempts are seconds apart.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const day = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const time = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const number = new Intl.NumberFormat();

export function formatDate(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

/** Time of day with seconds: attempts of one delivery are seconds apart. */
export function formatTime(iso: string | null | undefined): string {
  return iso ? time.format(new Date(iso)) : '—';
}

/** A UTC calendar day (`YYYY-MM-DD`) as "Nov 3". */
export function formatDay(date: string): string {
  return day.format(new Date(`${date}T00:00:00Z`));
}

/** A duration for people: "340 ms", "4.2 s", "2 min 5 s", "3 h 10 min". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}

/** Milliseconds between two ISO timestamps, or null when either is missing. */
export function between(from: string | null | undefined, to: string | null | undefined): number | null {
  return from && to ? new Date(to).getTime() - new Date(from).getTime() : null;
}

/** A signed number of credits: "+100", "−4", "0". */
export function signed(value: number): string {
  return value > 0 ? `+${number.format(value)}` : value < 0 ? `−${number.format(-value)}` : '0';
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

/** `500, usd` → `$5.00`; other currencies with their code. */
export function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(amount / 100);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
}
