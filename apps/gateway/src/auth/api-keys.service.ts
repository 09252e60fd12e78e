import { Injectable, Logger } from '@nestjs/common';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { NotFoundError, UnauthorizedError, ValidationError } from '@gen/errors';
import { generateApiKey, hashApiKey, parseApiKey } from './api-key-format';
import { API_KEY_SCOPES, ApiKeyEntity, ApiKeyScope } from './api-key.entity';
import { AuthRepository } from './auth.repository';

export interface Principal {
  accountId: string;
  apiKeyId: string;
  scopes: ApiKeyScope[];
}

export interface CreatedApiKey {
  id: string;
  /** The full key: shown once, never stored. */
  key: string;
  name: string;
  scopes: ApiKeyScope[];
}

@Injectable()
export class ApiKeysService {
  private readonly logger = new Logger(ApiKeysService.name);
  /** A hash to compare against when the lookup id matches nothing, so both paths cost the same. */
  private readonly decoyHash = hashApiKey('gsk_live_decoy');

  constructor(private readonly repository: AuthRepository) {}

  async create(accountId: string, name: string, scopes: ApiKeyScope[] = [...API_KEY_SCOPES], webhookUrl: string | null = null): Promise<CreatedApiKey> {
    if (!(await this.repository.findAccount(accountId))) throw new NotFoundError('No such account.');
    const cleanName = name.trim();
    if (cleanName.length === 0 || cleanName.length > 100) throw new ValidationError('name: 1 to 100 characters.');
    const unknown = scopes.filter((s) => !API_KEY_SCOPES.includes(s));
    if (unknown.length > 0 || scopes.length === 0) {
      throw new ValidationError(`scopes: one or more of ${API_KEY_SCOPES.join(', ')}.`);
    }
    const generated = generateApiKey();
    const id = randomUUID();
    await this.repository.insertKey({
      id,
      accountId,
      name: cleanName,
      lookupId: generated.lookupId,
      keyHash: generated.hash,
      last4: generated.last4,
      scopes: [...new Set(scopes)],
      webhookUrl,
      webhookSecret: null,
    });
    return { id, key: generated.key, name: cleanName, scopes };
  }

  /** Resolves a bearer token to its account; every failure is the same 401. */
  async authenticate(token: string | undefined): Promise<Principal> {
    const parsed = token ? parseApiKey(token) : null;
    const row = parsed ? await this.repository.findKeyByLookupId(parsed.lookupId) : null;
    const presented = hashApiKey(token ?? '');
    const expected = row?.keyHash ?? this.decoyHash;
    const matches = expected.length === presented.length && timingSafeEqual(expected, presented);
    if (!row || !matches || row.revokedAt !== null) throw new UnauthorizedError();
    this.repository.touchKey(row.id).catch((error: unknown) => this.logger.warn({ err: error }, 'last_used_at not updated'));
    return { accountId: row.accountId, apiKeyId: row.id, scopes: row.scopes };
  }

  async revoke(accountId: string, keyId: string): Promise<void> {
    if (!(await this.repository.revokeKey(accountId, keyId))) throw new NotFoundError('No such active key.');
  }

  list(accountId: string): Promise<ApiKeyEntity[]> {
    return this.repository.listKeys(accountId);
  }

  /** The dispatcher's view of a key: its current signing secret and default destination. */
  async webhookSettings(keyId: string): Promise<{ secret: string | null; defaultWebhookUrl: string | null }> {
    const key = await this.repository.findKeyById(keyId);
    return { secret: key?.webhookSecret ?? null, defaultWebhookUrl: key?.webhookUrl ?? null };
  }
}
