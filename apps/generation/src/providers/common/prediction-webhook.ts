import type { BindingSettings } from './binding-settings';
import type { UpstreamJob } from './upstream-client';

/**
 * The webhook fields of a prediction (Replicate's create, and Cog's, which takes the same): the job's
 * callback URL and only the `completed` event (one call when the prediction ends, not one per log
 * line); none unless the binding has `"callbacks": true` and the job was given a URL.
 */
export function callbackFields(settings: Pick<BindingSettings, 'callbacks'>, job: UpstreamJob): { webhook?: string; webhook_events_filter?: ['completed'] } {
  const url = job.request.callbackUrl;
  return settings.callbacks && url ? { webhook: url, webhook_events_filter: ['completed'] } : {};
}
