import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { CallbackProvider, isCallbackProvider } from '@gen/contracts';
import { CallbackUrls } from '../ports/callback-urls';
import { callbackToken, readCallbackToken } from './callback-token';
import { CALLBACK_KEY_BYTES, parseCallbackKey, ProviderCallbackSettings } from '../config/provider-callbacks.settings';

/** DI token of ProviderCallbackSettings. */
export const PROVIDER_CALLBACK_SETTINGS = Symbol('PROVIDER_CALLBACK_SETTINGS');

/** The token key: PROVIDER_CALLBACK_KEY, or standalone's file (made on first start), or none (callbacks off). */
export function callbackKey(settings: ProviderCallbackSettings): Buffer | null {
  if (settings.key) return settings.key;
  if (!settings.keyFile) return null;
  mkdirSync(dirname(settings.keyFile), { recursive: true, mode: 0o700 });
  try {
    writeFileSync(settings.keyFile, randomBytes(CALLBACK_KEY_BYTES).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = parseCallbackKey(readFileSync(settings.keyFile, 'utf8'));
  if (!key) throw new Error(`${settings.keyFile} does not hold a provider callback key (32 bytes, base64); remove it to make a new one`);
  return key;
}

/**
 * The callback URLs of provider jobs (docs/operations/providers.md, "Callbacks"): made for a submit
 * (`urlFor`, which the job runner puts on the engine request) and read back when a callback arrives.
 */
@Injectable()
export class ProviderCallbacks implements CallbackUrls {
  private readonly key: Buffer | null;

  constructor(@Inject(PROVIDER_CALLBACK_SETTINGS) private readonly settings: ProviderCallbackSettings) {
    this.key = callbackKey(settings);
  }

  /**
   * The URL to give `kind`'s provider for the job's callback; null when `kind` has no callbacks or
   * this deployment has no token key (PROVIDER_CALLBACK_KEY unset in distributed mode). Adapters send
   * it only when their binding has `"callbacks": true`.
   */
  urlFor(jobId: string, kind: string): string | null {
    if (!this.key || !isCallbackProvider(kind)) return null;
    return `${this.settings.baseUrl}/provider-callbacks/${kind}/${callbackToken(this.key, kind, jobId)}`;
  }

  /** The job a callback URL's token names for `provider`; null when it is not a token of ours. */
  jobOf(provider: CallbackProvider, token: string): string | null {
    return this.key ? readCallbackToken(this.key, provider, token) : null;
  }
}
