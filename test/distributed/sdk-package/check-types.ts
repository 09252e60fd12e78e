// Type-checked in the install folder against the packed declarations (tsc --noEmit): the published types.
import { GenerationClient, type Generation, type WebhookEvent, verifyWebhook } from '@generation-service/sdk';

export async function sample(client: GenerationClient, raw: string, headers: Record<string, string>): Promise<string> {
  const generation: Generation = await client.generations.create({ model: 'pixel-flux-1', prompt: 'typed', type: 'TEXT_TO_IMAGE' });
  const { event }: { event: WebhookEvent } = await verifyWebhook({ payload: raw, headers, secret: 'whsec_x' });
  // The union narrows on `event`, and a switch over it is exhaustive.
  switch (event.event) {
    case 'generation.completed':
      return event.output_url;
    case 'generation.failed':
      return `${generation.id}: ${event.error}`;
    case 'account.low_balance':
      return `${event.account_id}: ${event.available} < ${event.threshold}`;
  }
}
