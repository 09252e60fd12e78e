import type { BenchServers } from './modes';

/** A positive number from the environment (the benchmark's knobs), or `fallback`; anything else stops the run. */
export function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number (got "${raw}")`);
  return value;
}

/** A positive whole number from the environment (a count: connections, workers), or `fallback`. */
export function positiveInteger(name: string, fallback: number): number {
  const value = positiveNumber(name, fallback);
  if (!Number.isInteger(value)) throw new Error(`${name} must be a whole number (got "${process.env[name]}")`);
  return value;
}

/**
 * `BENCH_ONLY`: a comma-separated subset of `allowed` (all of them when unset); an unknown name
 * stops the run rather than silently measuring nothing.
 */
export function onlySet<T extends string>(allowed: readonly T[], variable = 'BENCH_ONLY'): Set<T> {
  const raw = process.env[variable];
  if (raw === undefined || raw.trim() === '') return new Set(allowed);
  const names = raw.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(allowed as readonly string[]).includes(n));
  if (unknown.length > 0) throw new Error(`${variable}: unknown ${unknown.join(', ')} (one or more of ${allowed.join(',')})`);
  return new Set(names as T[]);
}

/** The PostgreSQL server and NATS the benchmarks run on: BENCH_DATABASE_URL (admin URL) and BENCH_NATS_URL. */
export function benchServers(): BenchServers {
  return {
    pgAdminUrl: process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    natsUrl: process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222',
  };
}
