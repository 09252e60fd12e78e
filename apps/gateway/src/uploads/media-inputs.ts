import { ValidationError } from '@gen/errors';
import { InputsSchema, mediaInputs } from '@gen/model-inputs';
import type { UploadRow } from './uploads.repository';
import type { UploadsService } from './uploads.service';

/** An input with its media resolved, and the media fetched for it (removed if the request is then refused). */
export interface ResolvedMedia {
  input: Record<string, unknown>;
  fetched: UploadRow[];
}

/**
 * Resolves every media input of a checked `input` (docs/guide/uploads.md): an upload's id or URL becomes
 * that upload's URL (only the account's own, not expired), an https URL is fetched into an upload
 * of the account and becomes its URL (unless `fetch` is false: a batch's lines take uploads only). Every problem is named in one 422; then nothing is kept.
 */
export async function resolveMediaInputs(
  uploads: UploadsService,
  accountId: string,
  schema: InputsSchema,
  input: Record<string, unknown>,
  options: { fetch: boolean } = { fetch: true },
): Promise<ResolvedMedia> {
  const fields = mediaInputs(schema).filter((name) => typeof input[name] === 'string');
  if (fields.length === 0) return { input, fetched: [] };
  const outcomes = await Promise.allSettled(fields.map((name) => uploads.resolve(accountId, name, input[name] as string, options)));
  const fetched = outcomes.flatMap((o) => (o.status === 'fulfilled' && o.value.fetched ? [o.value.fetched] : []));
  const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
  if (failures.length > 0) {
    await uploads.discard(fetched);
    const unexpected = failures.find((f) => !(f instanceof ValidationError));
    if (unexpected) throw unexpected;
    throw new ValidationError(failures.map((f) => (f as ValidationError).message).join('; '));
  }
  const resolved = { ...input };
  fields.forEach((name, index) => (resolved[name] = (outcomes[index] as PromiseFulfilledResult<{ url: string }>).value.url));
  return { input: resolved, fetched };
}
