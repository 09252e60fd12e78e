import { openServiceDataSource, ServiceDatabaseOptions } from '@gen/persistence';
import type { DataSource } from 'typeorm';
import { AccountEntity } from './auth/account.entity';
import { ApiKeyEntity } from './auth/api-key.entity';
import { AuthInit1763700000000 } from './migrations/1763700000000-auth-init';

export const AUTH_SCHEMA = 'auth';

export function authDatabaseOptions(url: string, poolSize?: number): ServiceDatabaseOptions {
  return { url, schema: AUTH_SCHEMA, entities: [AccountEntity, ApiKeyEntity], migrations: [AuthInit1763700000000], poolSize };
}

export function openAuthDatabase(url: string, poolSize?: number): Promise<DataSource> {
  return openServiceDataSource(authDatabaseOptions(url, poolSize));
}
