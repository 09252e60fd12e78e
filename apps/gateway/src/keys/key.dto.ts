import { applyDecorators } from '@nestjs/common';
import { ValidationError } from '@gen/errors';
import { ArrayMaxSize, ArrayNotEmpty, IsArray, IsDefined, IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { API_KEY_SCOPES, ApiKeyScope, WEBHOOK_SCHEMES, WebhookScheme } from '../auth/api-key.entity';

/** An optional list of a key's permissions: at least one, each known. */
const ScopesField = () =>
  applyDecorators(
    IsOptional(),
    IsArray({ message: 'scopes: must be a list.' }),
    ArrayNotEmpty({ message: 'scopes: Choose at least one permission.' }),
    ArrayMaxSize(API_KEY_SCOPES.length, { message: 'scopes: too many entries.' }),
    IsIn(API_KEY_SCOPES, { each: true, message: `scopes: each one of ${API_KEY_SCOPES.join(', ')}.` }),
  );

export class CreateKeyDto {
  @IsString({ message: 'name: Enter a name for the key.' })
  @MaxLength(1000, { message: 'name: Use at most 100 characters.' })
  name!: string;

  @ScopesField()
  scopes?: ApiKeyScope[];

  /** Optional; empty or null means none. */
  @IsOptional()
  @IsString({ message: 'webhook_url: must be text.' })
  @MaxLength(4096, { message: 'webhook_url: too long.' })
  webhook_url?: string | null;
}

/** A key's name and/or scopes; an absent field keeps its value (at least one is needed). */
export class KeyLabelDto {
  @ValidateIf((body: KeyLabelDto) => body.name !== undefined || body.scopes === undefined)
  @IsString({ message: 'name: Enter a name for the key (or give scopes).' })
  @MaxLength(1000, { message: 'name: Use at most 100 characters.' })
  name?: string;

  @ScopesField()
  scopes?: ApiKeyScope[];
}

export class UpdateKeyDto {
  /** The new default webhook URL, or null (or empty) to remove it. */
  @IsDefined({ message: 'webhook_url: required (null removes it).' })
  @ValidateIf((body: UpdateKeyDto) => body.webhook_url !== null && body.webhook_url !== undefined)
  @IsString({ message: 'webhook_url: must be text or null.' })
  @MaxLength(4096, { message: 'webhook_url: too long.' })
  webhook_url!: string | null;
}

const CAP_MESSAGE = (field: string) => `${field}: must be a whole number of credits from 1 to 2147483647, or null for no cap.`;

/** A key's spending caps: a number sets one, null removes it, an absent field keeps it. */
export class KeyCapsDto {
  @ValidateIf((body: KeyCapsDto) => body.per_day !== null && body.per_day !== undefined)
  @IsInt({ message: CAP_MESSAGE('per_day') })
  @Min(1, { message: CAP_MESSAGE('per_day') })
  @Max(2_147_483_647, { message: CAP_MESSAGE('per_day') })
  per_day?: number | null;

  @ValidateIf((body: KeyCapsDto) => body.per_month !== null && body.per_month !== undefined)
  @IsInt({ message: CAP_MESSAGE('per_month') })
  @Min(1, { message: CAP_MESSAGE('per_month') })
  @Max(2_147_483_647, { message: CAP_MESSAGE('per_month') })
  per_month?: number | null;
}

/** How the key's webhooks are signed. */
export class WebhookSchemeDto {
  @IsIn(WEBHOOK_SCHEMES, { message: `scheme: one of ${WEBHOOK_SCHEMES.join(', ')}.` })
  scheme!: WebhookScheme;
}

const OVERLAP_MESSAGE = 'overlap_seconds: a whole number of seconds from 1 to 86400 (24 hours), or absent to renew at once.';

/**
 * The body of POST /keys/{id}/webhook-secret, which may have none (renew at once) or
 * `{"overlap_seconds": n}` (a `standard` key's rotation): read here rather than by a DTO, because
 * the validation pipe refuses a missing body for a DTO route.
 */
export function renewSecretOverlap(body: unknown): number | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body !== 'object' || Array.isArray(body)) throw new ValidationError('The request body must be a JSON object.');
  const unknown = Object.keys(body).filter((name) => name !== 'overlap_seconds');
  if (unknown.length > 0) throw new ValidationError(`${unknown[0]}: unknown field`);
  const overlap = (body as { overlap_seconds?: unknown }).overlap_seconds;
  if (overlap === undefined) return undefined;
  if (typeof overlap !== 'number' || !Number.isInteger(overlap) || overlap < 1 || overlap > 86_400) throw new ValidationError(OVERLAP_MESSAGE);
  return overlap;
}
