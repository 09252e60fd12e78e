/** Postgres SQLSTATE codes the services branch on. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_SERIALIZATION_FAILURE = '40001';
export const PG_DEADLOCK = '40P01';

export function pgErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown; driverError?: { code?: unknown } } | null)?.code ??
    (error as { driverError?: { code?: unknown } } | null)?.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}
