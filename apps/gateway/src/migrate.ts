import 'reflect-metadata';
import { migrationMain } from '@gen/persistence';
import { authDatabaseOptions } from './gateway.database';

/** The gateway's migration job (its image's init container): the auth schema only, then exit. */
migrationMain((url) => authDatabaseOptions(url));
