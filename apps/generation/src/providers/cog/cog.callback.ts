import { CallbackDelivery, CallbackVerdict, CallbackVerifier, jsonBody, refuse } from '../../ports/callback-verifier';

/**
 * Cog's webhooks (https://github.com/replicate/cog/blob/main/docs/http.md, "Webhooks"): a POST of the
 * prediction (`{"id", "status", "output", ...}`), unsigned. The token in the URL is the proof (only
 * we and the container ever see it); the prediction's `id` must be the one stored on our job.
 */
export class CogCallbackVerifier implements CallbackVerifier {
  verify(delivery: CallbackDelivery, upstreamRef: string | null): Promise<CallbackVerdict> {
    const prediction = jsonBody(delivery.body);
    if (!prediction || typeof prediction.id !== 'string') return Promise.resolve(refuse('malformed', 'the body is not a prediction with an id'));
    const stored = upstreamRef?.startsWith('cog:') ? upstreamRef.slice('cog:'.length) : null;
    if (stored !== prediction.id) return Promise.resolve(refuse('mismatch', `prediction ${prediction.id.slice(0, 64)} is not the one this job waits on`));
    return Promise.resolve({ ok: true, deliveryId: null });
  }
}
