import type { GenerationType } from '@gen/contracts';
import { ObjectTooLargeError, OutputStorage, putSniffed, UnacceptedFormatError } from '@gen/storage';
import type { EngineOutput } from '../../ports/engine';
import { FORMATS_BY_TYPE, outputFormatFor } from './output-format';
import { UpstreamFailure } from './upstream-failure';
import { readLimited, UpstreamHttp } from './upstream-http';

const MAX_OUTPUT_REDIRECTS = 3;

export interface OutputFetchOptions {
  /** The API's own origin: outputs there are always allowed, and only there is the credential sent. */
  apiOrigin: string;
  /** What a relative output URL is resolved against (the API's base URL). */
  apiBase: string;
  /** Other origins outputs may come from: `https://cdn.example` or `https://*.cdn.example` (subdomains). */
  outputOrigins: readonly string[];
  maxOutputBytes: number;
  /** Headers for a call to the API's own origin (credential included). */
  apiHeaders(accept: string): Record<string, string>;
}

/**
 * Turns what a provider answered as the output into the asset's bytes, checked: a URL (downloaded
 * from an allowed origin, up to 3 redirects each checked again, never larger than `maxOutputBytes`),
 * a `data:` URI (Replicate's sync mode, Cog's default) or bare base64 (OpenAI's `b64_json`). Whatever
 * the upstream claims the type is, the bytes decide (`outputFormatFor`): an HTML error page served as
 * `200 image/png` is refused. With a storage, a downloaded output is streamed into it as it arrives
 * (its format sniffed from the first bytes, the cap counted on the way, nothing kept on failure):
 * a video is never whole in memory.
 */
export class OutputFetcher {
  private readonly exact: ReadonlySet<string>;
  private readonly wildcards: ReadonlyArray<{ protocol: string; suffix: string; port: string }>;

  constructor(
    private readonly http: UpstreamHttp,
    private readonly options: OutputFetchOptions,
    /** Where downloads are streamed; absent (unit tests): they are read into memory. */
    private readonly storage?: OutputStorage,
  ) {
    const exact = new Set<string>([options.apiOrigin]);
    const wildcards: Array<{ protocol: string; suffix: string; port: string }> = [];
    for (const pattern of options.outputOrigins) {
      const wildcard = /^(https?:)\/\/\*\.([^/:]+)(?::(\d+))?$/.exec(pattern);
      if (wildcard) wildcards.push({ protocol: wildcard[1], suffix: `.${wildcard[2].toLowerCase()}`, port: wildcard[3] ?? '' });
      else exact.add(pattern);
    }
    this.exact = exact;
    this.wildcards = wildcards;
  }

  /** `reference` is a URL (absolute, or relative to the API) or a data URI. */
  async fetch(reference: string, type: GenerationType, signal: AbortSignal): Promise<EngineOutput> {
    if (/^data:/i.test(reference)) return this.decodeDataUri(reference, type);
    let url = this.allowedUrl(reference, `${this.options.apiBase}/`);
    for (let hop = 0; ; hop++) {
      const answer = await this.http.open(
        {
          method: 'GET',
          url,
          // The credential goes to the API's own origin only, never to a CDN it points at.
          headers: url.origin === this.options.apiOrigin ? this.options.apiHeaders('*/*') : { accept: '*/*', 'user-agent': USER_AGENT },
        },
        signal,
      );
      if (answer.status < 200 || answer.status >= 300) answer.discard();
      if (answer.status >= 300 && answer.status < 400 && answer.location && hop < MAX_OUTPUT_REDIRECTS) {
        url = this.allowedUrl(answer.location, url.href);
        continue;
      }
      if (answer.status === 429 || answer.status >= 500) {
        throw new UpstreamFailure('unavailable', `output download: HTTP ${answer.status}`, { retryAfterMs: answer.retryAfterMs });
      }
      if (answer.status < 200 || answer.status >= 300) {
        throw new UpstreamFailure('output_unavailable', `output download ${url.pathname}: HTTP ${answer.status}`);
      }
      if (this.storage) return this.streamed(this.storage, answer.body, type);
      const body = await readLimited(answer.body, this.options.maxOutputBytes, () => {
        throw new UpstreamFailure('output_invalid', `output download ${url.pathname}: body larger than ${this.options.maxOutputBytes} bytes`);
      });
      return this.checked(body, type);
    }
  }

  /**
   * Every output once all are settled; if one failed, those already streamed into the storage are
   * deleted (nothing is left without a job pointing at it) and the first failure is thrown.
   */
  async settle(pending: ReadonlyArray<Promise<EngineOutput>>): Promise<EngineOutput[]> {
    const results = await Promise.allSettled(pending);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    const outputs = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    if (!failed) return outputs;
    await this.discard(outputs);
    throw failed.reason;
  }

  /** Deletes the objects of outputs already streamed into the storage (best effort). */
  async discard(outputs: readonly EngineOutput[]): Promise<void> {
    const keys = outputs.flatMap((o) => (o.stored ? [o.stored.key] : []));
    if (keys.length > 0) await this.storage?.deleteMany(keys).catch(() => undefined);
  }

  /** The same rule as `outputFormatFor`, applied to the first bytes while the rest streams into the storage. */
  private async streamed(storage: OutputStorage, body: AsyncIterable<Buffer>, type: GenerationType): Promise<EngineOutput> {
    try {
      const object = await putSniffed(storage, body, {
        maxBytes: this.options.maxOutputBytes,
        accept: (format) => format !== null && FORMATS_BY_TYPE[type].includes(format),
      });
      return { stored: { key: object.key, bytes: object.bytes }, contentType: object.format.contentType, extension: object.format.extension };
    } catch (error) {
      if (error instanceof ObjectTooLargeError) throw new UpstreamFailure('output_invalid', `output is over maxOutputBytes (${this.options.maxOutputBytes})`);
      if (error instanceof UnacceptedFormatError) throw new UpstreamFailure('output_invalid', `output is not a ${type} asset we accept`);
      throw error;
    }
  }

  /** Bare base64 (`b64_json`). */
  fromBase64(text: string, type: GenerationType): EngineOutput {
    return this.checked(this.decodeBase64(text, 'b64_json'), type);
  }

  /** `data:[<mediatype>][;base64],<data>` (RFC 2397). The declared media type is ignored: the bytes decide. */
  private decodeDataUri(uri: string, type: GenerationType): EngineOutput {
    const comma = uri.indexOf(',');
    if (comma < 0) throw new UpstreamFailure('malformed', 'output data URI has no ","');
    const meta = uri.slice(5, comma).toLowerCase();
    const data = uri.slice(comma + 1);
    const bytes = meta.split(';').includes('base64') ? this.decodeBase64(data, 'data URI') : percentDecode(data, this.options.maxOutputBytes);
    return this.checked(bytes, type);
  }

  private decodeBase64(text: string, what: string): Buffer {
    const compact = text.replace(/\s+/g, '');
    // Checked before decoding: Buffer.from silently skips what is not base64.
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) && !/^[A-Za-z0-9_-]*={0,2}$/.test(compact)) {
      throw new UpstreamFailure('malformed', `output ${what} is not base64`);
    }
    if (Math.floor((compact.length * 3) / 4) > this.options.maxOutputBytes + 2) {
      throw new UpstreamFailure('output_invalid', `output ${what} decodes to more than ${this.options.maxOutputBytes} bytes`);
    }
    return Buffer.from(compact, 'base64');
  }

  private checked(data: Buffer, type: GenerationType): EngineOutput {
    if (data.length > this.options.maxOutputBytes) {
      throw new UpstreamFailure('output_invalid', `output of ${data.length} bytes is over maxOutputBytes`);
    }
    const format = outputFormatFor(type, data);
    if (!format) throw new UpstreamFailure('output_invalid', `output of ${data.length} bytes is not a ${type} asset we accept`);
    return { data, contentType: format.contentType, extension: format.extension };
  }

  /** An output URL we may download: http(s), from the API's origin or an allowed one. */
  private allowedUrl(raw: string, base: string): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      throw new UpstreamFailure('malformed', 'output URL is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UpstreamFailure('malformed', `output URL scheme ${url.protocol}`);
    if (url.username || url.password) throw new UpstreamFailure('malformed', 'output URL carries credentials');
    if (!this.isAllowed(url)) throw new UpstreamFailure('output_unavailable', `output origin ${url.origin} is not in outputOrigins`);
    return url;
  }

  private isAllowed(url: URL): boolean {
    if (this.exact.has(url.origin)) return true;
    const host = url.hostname.toLowerCase();
    return this.wildcards.some((w) => w.protocol === url.protocol && w.port === url.port && host.endsWith(w.suffix));
  }
}

export const USER_AGENT = 'GenerationService/1.0';

/** RFC 3986 percent-decoding into bytes (not text: the payload is binary). */
function percentDecode(text: string, maxBytes: number): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (bytes.length > maxBytes) throw new UpstreamFailure('output_invalid', `output data URI decodes to more than ${maxBytes} bytes`);
    const c = text.charCodeAt(i);
    if (c === 0x25 && /^[0-9a-fA-F]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c < 0x80) bytes.push(c);
    else throw new UpstreamFailure('malformed', 'output data URI is not ASCII');
  }
  return Buffer.from(bytes);
}
