import 'reflect-metadata';
import { migrationMain } from '@gen/persistence';
import { billingDatabaseOptions } from './billing.database';

/** The billing service's migration job (its image's init container): the billing schema only, then exit. */
migrationMain((url) => billingDatabaseOptions(url));
