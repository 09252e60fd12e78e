// Type-checked in the install folder against the packed declarations (tsc --noEmit): the published types.
import { GenerationClient, type Generation, type WebhookEvent, verifyWebhook } from '@generation-service/sdk';

export async function sample(client: GenerationClient, raw: string, headers: Record<string, string>): Promise<string> {
  const generation: Generation = await client.generations.create({ model: 'pixel-flux-1', prompt: 'typed', type: 'TEXT_TO_IMAGE' });
  const { event }: { event: WebhookEvent } = await verifyWebhook({ payload: raw, headers, secret: 'whsec_x' });
  // The union narrows on `event`.
  return event.event === 'generation.completed' ? event.output_url : `${generation.id}: ${event.error}`;
}
