/**
 * What the job runtime asks of provider callbacks (docs/operations/providers.md, "Callbacks"): the URL
 * a provider calls when a job's upstream work ends. `callbacks/` implements it (ProviderCallbacks), so
 * the runtime never imports the callbacks folder, whose receiver wakes the runtime's parked jobs.
 */
export abstract class CallbackUrls {
  /** The URL to give `kind`'s provider for the job's callback; null when there is none (see ProviderCallbacks.urlFor). */
  abstract urlFor(jobId: string, kind: string): string | null;
}
