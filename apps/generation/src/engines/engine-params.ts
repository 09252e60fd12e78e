/**
 * Reading catalogue params safely. Params come from configuration (`Record<string, unknown>`), so
 * every engine goes through these helpers: wrong types or non-finite values fall back to the
 * default, and out-of-range values are clamped rather than rejected, keeping output sizes bounded.
 */

export interface NumberParamOptions {
  min: number;
  max: number;
  /** Round to the nearest integer (after clamping). */
  integer?: boolean;
}

export function readNumberParam(
  params: Record<string, unknown> | undefined,
  key: string,
  fallback: number,
  { min, max, integer = false }: NumberParamOptions,
): number {
  const raw = params?.[key];
  let value = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(value)) value = fallback;
  if (integer) value = Math.round(value);
  return Math.min(max, Math.max(min, value));
}

/** Simulated latency, shared by every built-in engine (default 0, capped at 10 minutes). */
export function readLatencyMs(params: Record<string, unknown> | undefined): number {
  return readNumberParam(params, 'latencyMs', 0, { min: 0, max: 600_000, integer: true });
}
