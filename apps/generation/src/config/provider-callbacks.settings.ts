import { custom, derived, EnvReader, PUBLIC_URL_VARIABLES, unset, url } from '@gen/config';

/** Bytes of PROVIDER_CALLBACK_KEY, the key that makes and checks callback tokens. */
export const CALLBACK_KEY_BYTES = 32;

const INVALID_KEY = `must be 32 random bytes in base64 or hex, e.g. from: node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`;

/** 32 bytes as base64 (44 characters) or hex (64 characters); null for anything else. */
export function parseCallbackKey(text: string): Buffer | null {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const bytes = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return bytes.length === CALLBACK_KEY_BYTES ? bytes : null;
  }
  return null;
}

/**
 * Provider callbacks (docs/operations/providers.md, "Callbacks"): where providers reach the gateway's
 * `/provider-callbacks/` route, and the key of the tokens in those URLs. Every generation replica
 * needs the same key (a callback may reach any of them through the gateway).
 */
export const PROVIDER_CALLBACK_VARIABLES = {
  baseUrl: url(
    'PROVIDER_CALLBACK_BASE_URL',
    derived('`$PUBLIC_BASE_URL`', (valueOf) => valueOf(PUBLIC_URL_VARIABLES.publicBaseUrl)),
    "where providers reach the gateway's `POST /provider-callbacks/...` route (bindings with `\"callbacks\": true`; `docs/operations/configure.md`, \"Provider callbacks\")",
  ),
  key: custom<Buffer | null>(
    'PROVIDER_CALLBACK_KEY',
    unset('generated in `DATA_DIR/secrets` (standalone); none: callbacks off (distributed)'),
    '32 random bytes (base64 or hex) that make and check the token of each callback URL; the same on every generation replica',
    null,
    (value, problem) => {
      const key = parseCallbackKey(value);
      if (!key) problem(`PROVIDER_CALLBACK_KEY ${INVALID_KEY}`);
      return key ?? undefined;
    },
  ),
};

export interface ProviderCallbackSettings {
  /** Base of callback URLs (`https://api.example.com`), without a trailing slash. */
  baseUrl: string;
  /** The token key, or null: then `keyFile` (standalone), or callbacks are off. */
  key: Buffer | null;
  /** Where standalone keeps a key made on first use when PROVIDER_CALLBACK_KEY is unset; null elsewhere. */
  keyFile: string | null;
}

/** PROVIDER_CALLBACK_BASE_URL and PROVIDER_CALLBACK_KEY; `keyFile` is standalone's place for a generated key. */
export function readProviderCallbackSettings(env: EnvReader, keyFile: string | null = null): ProviderCallbackSettings {
  const values = env.readAll(PROVIDER_CALLBACK_VARIABLES);
  return { baseUrl: values.baseUrl, key: values.key, keyFile: values.key ? null : keyFile };
}
