import { formatOfContentType, ObjectTooLargeError, OutputStorage, putSniffed, SniffedObject, UnacceptedFormatError } from '@gen/storage';
import { createSafeDispatcher, validateWebhookUrl, WebhookDestinationPolicy } from '@gen/webhook-policy';
import { Agent, request } from 'undici';

const MAX_REDIRECTS = 3;
const USER_AGENT = 'GenerationService/1.0 (media input)';

/** Why a media URL was not taken, in words for the customer (the field is named by the caller). */
export class MediaFetchRefused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'MediaFetchRefused';
  }
}

/**
 * Fetches a customer's media URL into the storage, as webhooks reach customers' URLs: under the
 * media fetch rules (MEDIA_FETCH_ALLOW_*, with the webhooks' ports), every address checked at connect time (so DNS
 * rebinding cannot slip a private address in), each redirect checked again, at most 3. The answer
 * must say it is media and be at most `maxBytes` (a larger Content-Length is refused before reading;
 * a body that grows past it is cut off there), and its bytes must be an image, video, audio or 3D
 * file (never an HTML page with a media type).
 */
export class RemoteMedia {
  private readonly agent: Agent;

  constructor(
    private readonly storage: OutputStorage,
    private readonly policy: WebhookDestinationPolicy,
    private readonly limits: { maxBytes: number; timeoutMs: number },
  ) {
    this.agent = createSafeDispatcher(policy, { connectTimeoutMs: Math.min(10_000, limits.timeoutMs), connectionsPerOrigin: 16 });
  }

  async fetch(url: string): Promise<SniffedObject> {
    const timeout = AbortSignal.timeout(this.limits.timeoutMs);
    let target = this.checked(url);
    try {
      for (let hop = 0; ; hop++) {
        const answer = await request(target, {
          method: 'GET',
          headers: { accept: 'image/*, video/*, audio/*, model/gltf-binary', 'user-agent': USER_AGENT },
          dispatcher: this.agent,
          signal: timeout,
        });
        const location = answer.headers.location;
        if (answer.statusCode >= 300 && answer.statusCode < 400 && typeof location === 'string') {
          discard(answer.body);
          if (hop >= MAX_REDIRECTS) throw new MediaFetchRefused(`the URL redirects more than ${MAX_REDIRECTS} times`);
          target = this.checked(new URL(location, target).href);
          continue;
        }
        if (answer.statusCode < 200 || answer.statusCode >= 300) {
          discard(answer.body);
          throw new MediaFetchRefused(`the URL answered HTTP ${answer.statusCode}`);
        }
        const type = typeof answer.headers['content-type'] === 'string' ? answer.headers['content-type'] : '';
        if (!formatOfContentType(type) && !/^application\/octet-stream\b/i.test(type)) {
          discard(answer.body);
          throw new MediaFetchRefused(`the URL answered ${printable(type)}, not an image, video, audio or 3D file`);
        }
        const length = Number(answer.headers['content-length']);
        if (Number.isFinite(length) && length > this.limits.maxBytes) {
          discard(answer.body);
          throw new MediaFetchRefused(`the file is ${length} bytes; at most ${this.limits.maxBytes} are taken`);
        }
        return await putSniffed(this.storage, answer.body, { maxBytes: this.limits.maxBytes, accept: (format) => format !== null });
      }
    } catch (error) {
      throw this.refusal(error, timeout);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }

  private checked(url: string): URL {
    const verdict = validateWebhookUrl(url, this.policy);
    if (!verdict.ok) throw new MediaFetchRefused(verdict.reason.replace(/^Webhook URL/, 'the URL').replace(/webhooks/g, 'media'));
    return verdict.url;
  }

  private refusal(error: unknown, timeout: AbortSignal): MediaFetchRefused {
    if (error instanceof MediaFetchRefused) return error;
    if (error instanceof ObjectTooLargeError) return new MediaFetchRefused(`the file is larger than ${this.limits.maxBytes} bytes`);
    if (error instanceof UnacceptedFormatError) return new MediaFetchRefused('the file is not an image, video, audio or 3D file of a format the service takes (PNG, JPEG, WebP, MP4, WebM, WAV, MP3, GLB)');
    if (timeout.aborted) return new MediaFetchRefused(`the URL did not answer in full within ${this.limits.timeoutMs} ms`);
    const forbidden = findForbidden(error);
    if (forbidden) return new MediaFetchRefused(forbidden.replace(/^Webhook destination/, 'the URL\'s host'));
    return new MediaFetchRefused('the URL could not be fetched (network error)');
  }
}

/** Stops reading a body we do not want (undici reports the abort as an error: expected here). */
function discard(body: { on(event: 'error', listener: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** A media type safe to repeat to the client. */
function printable(type: string): string {
  const bare = type.split(';')[0].trim();
  return bare === '' ? 'no Content-Type' : /^[a-z0-9.+-]{1,60}\/[a-z0-9.+-]{1,60}$/i.test(bare) ? bare : 'an unknown Content-Type';
}

/** The message of the destination refusal (the safe agent's), wrapped anywhere in the causes. */
function findForbidden(error: unknown): string | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e as { code?: string }).code === 'ERR_WEBHOOK_FORBIDDEN_DESTINATION') return e.message;
  }
  return null;
}
