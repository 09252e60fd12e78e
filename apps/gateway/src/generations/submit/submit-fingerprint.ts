import type { GenerateRequestDto } from './generate-request.dto';

/**
 * What makes two submits with one Idempotency-Key "the same request": the spec's fields, the
 * deadline, and the input and metadata when given (keys sorted: `{"a":1,"b":2}` and `{"b":2,"a":1}`
 * are one request). A request without input or metadata keeps the fingerprint it always had.
 */
export function submitFingerprint(body: GenerateRequestDto, cancelAfterSeconds: number | null): string {
  const sorted = (value: object) => Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return JSON.stringify([
    body.model,
    body.prompt,
    body.type,
    body.webhook_url ?? null,
    ...(cancelAfterSeconds === null ? [] : [cancelAfterSeconds]),
    ...(body.input === undefined && body.metadata === undefined ? [] : [{ input: sorted(body.input ?? {}), metadata: sorted(body.metadata ?? {}) }]),
  ]);
}
