/** Nearest-rank percentile (p in 0..100) of unsorted values; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

export function max(values: readonly number[]): number {
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => (b > a ? b : a), -Infinity);
}

export function fmtMs(value: number): string {
  if (Number.isNaN(value)) return 'n/a';
  return value < 10 ? value.toFixed(1) : value.toFixed(0);
}

export function fmtRate(value: number): string {
  return Number.isNaN(value) ? 'n/a' : Math.round(value).toLocaleString('en-US');
}
