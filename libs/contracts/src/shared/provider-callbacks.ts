import { IsIn, IsString, Length, Matches, MaxLength, ValidateBy } from 'class-validator';

/**
 * Provider callbacks (`POST /provider-callbacks/{provider}/{token}` on the gateway, answered by the
 * generation service on `Subjects.generationProviderCallback`): a provider telling us that one of our
 * upstream jobs ended. The gateway checks only what HTTP can (body size, JSON, path shape) and hands
 * the raw request on; the generation service verifies it (the token, the provider's signature) and,
 * when it holds, makes the parked job due. A callback never carries a result into a job: the job then
 * reads its result from the provider's API, as a poll would.
 */

/** The providers that call back (docs/operations/providers.md, "Callbacks"). */
export const CALLBACK_PROVIDERS = ['replicate', 'fal', 'cog'] as const;
export type CallbackProvider = (typeof CALLBACK_PROVIDERS)[number];

export function isCallbackProvider(value: unknown): value is CallbackProvider {
  return typeof value === 'string' && (CALLBACK_PROVIDERS as readonly string[]).includes(value);
}

/**
 * The request headers the verifiers read (lower case), and nothing else: Replicate's Standard
 * Webhooks headers and fal's signature headers.
 */
export const CALLBACK_HEADERS = [
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'x-fal-webhook-request-id',
  'x-fal-webhook-user-id',
  'x-fal-webhook-timestamp',
  'x-fal-webhook-signature',
] as const;
export type CallbackHeader = (typeof CALLBACK_HEADERS)[number];

/** An object of CALLBACK_HEADERS only, each a string of at most MAX_CALLBACK_HEADER_LENGTH. */
function IsCallbackHeaders(): PropertyDecorator {
  return ValidateBy({
    name: 'isCallbackHeaders',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.entries(value).every(
          ([name, header]) => (CALLBACK_HEADERS as readonly string[]).includes(name) && typeof header === 'string' && header.length <= MAX_CALLBACK_HEADER_LENGTH,
        ),
      defaultMessage: () => `headers must hold only ${CALLBACK_HEADERS.join(', ')}, each a string of at most ${MAX_CALLBACK_HEADER_LENGTH} characters`,
    },
  });
}

/** Longest value of a forwarded header (a Standard Webhooks signature list may hold a few signatures). */
export const MAX_CALLBACK_HEADER_LENGTH = 2048;
/** Longest token in a callback URL (ours are 64 characters). */
export const MAX_CALLBACK_TOKEN_LENGTH = 128;
/**
 * The shape of our tokens (a job id in hex and a base64url MAC): a gateway refuses anything else
 * without asking the generation service, so junk URLs cost no message.
 */
export const CALLBACK_TOKEN_SHAPE = /^[0-9a-f]{32}[A-Za-z0-9_-]{32}$/;
/** Largest raw body the generation service accepts (the gateway's own limit is lower; this bounds the message). */
export const MAX_CALLBACK_BODY_BYTES = 1024 * 1024;

/** `generation.provider-callback`, checked on receipt by the transport (PAYLOAD_CLASSES). */
export class ProviderCallbackRequest {
  /** The `{provider}` of the path (one of CALLBACK_PROVIDERS). */
  @IsIn(CALLBACK_PROVIDERS) provider!: CallbackProvider;
  /** The `{token}` of the path. */
  @IsString() @Length(1, MAX_CALLBACK_TOKEN_LENGTH) token!: string;
  /** Those of CALLBACK_HEADERS the request carried, each once. */
  @IsCallbackHeaders() headers!: Partial<Record<CallbackHeader, string>>;
  /** The body exactly as received, base64 (signatures are over these bytes). */
  @IsString() @MaxLength(Math.ceil(MAX_CALLBACK_BODY_BYTES / 3) * 4) @Matches(/^[A-Za-z0-9+/]*={0,2}$/) body!: string;
}

/**
 * Why a callback changed nothing (each a value of the refused counter's `reason` label):
 * - `token`: the URL's token is not one of ours (forged, or for another provider);
 * - `unknown_job`: a token of ours, for a job that no longer exists;
 * - `malformed`: the body or a header is not what the provider sends;
 * - `signature`: the provider's signature is missing or does not verify;
 * - `timestamp`: signed too long ago (or in the future): a late or replayed delivery;
 * - `replayed`: a delivery this replica already acted on, sent again;
 * - `mismatch`: a valid callback about another upstream job than the one this job waits on;
 * - `not_parked`: the job is not waiting on its provider right now (being submitted or collected);
 * - `finished`: the job already ended;
 * - `unverifiable`: the provider's signing keys could not be read just now (retry later).
 * The gateway adds its own before anything is forwarded: `too_large`, `bad_body`, `media_type`.
 */
export const CALLBACK_REFUSALS = [
  'token',
  'unknown_job',
  'malformed',
  'signature',
  'timestamp',
  'replayed',
  'mismatch',
  'not_parked',
  'finished',
  'unverifiable',
] as const;
export type CallbackRefusal = (typeof CALLBACK_REFUSALS)[number];

export type ProviderCallbackReply =
  /** Verified, and the parked job is now due: it reads its result from the provider next. */
  | { outcome: 'woken'; verified: true }
  /** Nothing changed; `verified` says whether the token and signature held. */
  | { outcome: 'refused'; verified: boolean; reason: CallbackRefusal; message: string };
